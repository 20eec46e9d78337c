/* Stand-in for the macOS SDK's <CommonCrypto/CommonCryptoError.h>, for cross builds with
 * zig (whose macOS headers have no CommonCrypto): only what mimalloc's random source uses.
 * The function itself is in libSystem, which zig links. See docs/prebuilt-servers.md. */
#ifndef WIRELENS_COMMONCRYPTOERROR_H
#define WIRELENS_COMMONCRYPTOERROR_H
#include <stdint.h>
typedef int32_t CCStatus;
typedef int32_t CCCryptorStatus;
enum { kCCSuccess = 0 };
#endif
