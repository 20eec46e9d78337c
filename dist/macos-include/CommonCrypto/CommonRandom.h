/* Stand-in for the macOS SDK's <CommonCrypto/CommonRandom.h> (see CommonCryptoError.h). */
#ifndef WIRELENS_COMMONRANDOM_H
#define WIRELENS_COMMONRANDOM_H
#include <stddef.h>
#include <CommonCrypto/CommonCryptoError.h>
typedef CCCryptorStatus CCRNGStatus;
CCRNGStatus CCRandomGenerateBytes(void *bytes, size_t count);
#endif
