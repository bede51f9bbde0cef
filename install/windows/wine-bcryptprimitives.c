/* For the smoke test under Debian's wine 8 only, which lacks bcryptprimitives.dll: Rust's standard
 * library takes its random bytes from ProcessPrng there (Windows 10 and later ship it). This stand-in
 * draws them from RtlGenRandom (advapi32's SystemFunction036), which wine has. Never installed on a
 * shop's PC; install/build-release.sh builds it into the throwaway wine prefix. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
