; Arka's installer for Windows (64-bit), built by install/build-release.sh with Debian's nsis:
;
;   makensis -WX -DVERSION=0.1.0 -DARKA_EXE=dist/arka-x86_64-pc-windows-gnu.exe -DOUTFILE=dist/arka-setup.exe install/windows/arka.nsi
;
; It installs arka.exe in Program Files and lets `arka service install` do the rest: the data folder
; %ProgramData%\Arka (for the service's account and Administrators only) with its settings file
; arka.env (kept on an upgrade), the service (started with Windows, restarted on failure) and the
; firewall rule (the listening port, private profile only) and the Start-menu link to the owner's
; page (at the address and port arka.env serves). Then it starts the service. The uninstaller keeps
; the data unless asked (or /PURGE).

Unicode true
!include "LogicLib.nsh"
!include "FileFunc.nsh"
!include "x64.nsh"

!macro need NAME
  !ifndef ${NAME}
    !error "${NAME} missing; usage: makensis -WX -DVERSION=x.y.z -DARKA_EXE=arka.exe -DOUTFILE=arka-setup.exe arka.nsi"
  !endif
!macroend
!insertmacro need VERSION
!insertmacro need ARKA_EXE
!insertmacro need OUTFILE

!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Arka"
; Written by `arka service install` from arka.env (src/ops/windows/start_menu.rs); removed here too.
!define PAGE_LINK "$SMPROGRAMS\Arka\Arka - owner's page.url"

Name "Arka ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\Arka"
RequestExecutionLevel admin
ShowInstDetails show
ShowUninstDetails show

Page directory
Page instfiles
UninstPage uninstConfirm
UninstPage instfiles

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP "Arka needs 64-bit Windows." /SD IDOK
    Abort
  ${EndIf}
  SetRegView 64
  ; $APPDATA is then %ProgramData%, where the service keeps its data.
  SetShellVarContext all
FunctionEnd

Section "Arka"
  SetOutPath "$INSTDIR"
  ; An upgrade: the service finishes the requests in flight and lets go of arka.exe first. Data and
  ; settings stay where they are; the new version's first start backs the database up into
  ; ARKA_BACKUP_DIR before it migrates anything (the rule on Linux too).
  ${If} ${FileExists} "$INSTDIR\arka.exe"
    DetailPrint "Stopping the Arka service for the upgrade"
    nsExec::ExecToLog '"$INSTDIR\arka.exe" service stop'
    Pop $0
  ${EndIf}
  File "/oname=arka.exe" "${ARKA_EXE}"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  nsExec::ExecToLog '"$INSTDIR\arka.exe" service install'
  Pop $0
  ${If} $0 != 0
    MessageBox MB_ICONSTOP "arka service install failed ($0): see the details." /SD IDOK
    Abort
  ${EndIf}
  nsExec::ExecToLog '"$INSTDIR\arka.exe" service start'
  Pop $0
  ${If} $0 != 0
    MessageBox MB_ICONEXCLAMATION "The Arka service did not start ($0): its log is in $APPDATA\Arka\data\logs." /SD IDOK
  ${EndIf}

  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayName" "Arka fiscal server"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "Publisher" "Arka"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKLM "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKLM "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINSTALL_KEY}" "NoRepair" 1
SectionEnd

Function un.onInit
  SetRegView 64
  SetShellVarContext all
FunctionEnd

Section "Uninstall"
  nsExec::ExecToLog '"$INSTDIR\arka.exe" service uninstall'
  Pop $0
  Delete "$INSTDIR\arka.exe"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "${PAGE_LINK}"
  RMDir "$SMPROGRAMS\Arka"
  DeleteRegKey HKLM "${UNINSTALL_KEY}"

  ; The data are the shop's fiscal records: kept unless asked (a question whose default is No, or
  ; /PURGE on the command line; a silent uninstall keeps them).
  StrCpy $R2 "keep"
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/PURGE" $R1
  ${IfNot} ${Errors}
    StrCpy $R2 "remove"
  ${ElseIf} ${Cmd} `MessageBox MB_YESNO|MB_DEFBUTTON2|MB_ICONQUESTION "Also delete Arka's data in $APPDATA\Arka (the database, its key file, the settings and the backups)? They are the shop's fiscal records: copy a backup elsewhere first." /SD IDNO IDYES`
    StrCpy $R2 "remove"
  ${EndIf}
  ${If} $R2 == "remove"
    RMDir /r "$APPDATA\Arka"
  ${Else}
    DetailPrint "Kept Arka's data and settings in $APPDATA\Arka"
  ${EndIf}
SectionEnd
