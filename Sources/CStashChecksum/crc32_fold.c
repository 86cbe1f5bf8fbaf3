// CRC-32 by folding with carry-less multiplication (PCLMULQDQ on x86-64), after Intel's
// "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction" (Gopal et al.,
// 2009), in its bit-reflected form. The constants are powers of x modulo the IEEE polynomial
// P(x) = 0x104C11DB7, bit-reflected and shifted one place as that paper derives them:
//
//   fold by four blocks (512 bits):  x^(512+32) mod P, x^(512-32) mod P
//   fold by one block   (128 bits):  x^(128+32) mod P, x^(128-32) mod P
//   128 to 64 bits, 64 to 32 bits, then Barrett reduction by P and floor(x^64 / P).

#include "CStashChecksum.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

#define FOLD_TARGET __attribute__((target("pclmul,sse4.1")))

static const uint64_t fold4_low = 0x154442bd4ULL, fold4_high = 0x1c6e41596ULL;
static const uint64_t fold1_low = 0x1751997d0ULL, fold1_high = 0x0ccaa009eULL;
static const uint64_t fold64 = 0x163cd6124ULL;
static const uint64_t polynomial = 0x1db710641ULL, barrett = 0x1f7011641ULL;

/// `x` folded forward across 128 bits times the distance that `constants` encodes, then
/// added (xor) to `next`.
FOLD_TARGET static inline __m128i fold(__m128i x, __m128i constants, __m128i next) {
    __m128i low = _mm_clmulepi64_si128(x, constants, 0x00);
    __m128i high = _mm_clmulepi64_si128(x, constants, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

FOLD_TARGET static size_t fold_pclmul(uint32_t *state, const uint8_t *bytes, size_t count) {
    const uint8_t *cursor = bytes;
    __m128i x0 = _mm_loadu_si128((const __m128i *)(cursor + 0));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(cursor + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(cursor + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(cursor + 48));
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)*state));
    cursor += 64;
    count -= 64;

    const __m128i by4 = _mm_set_epi64x((long long)fold4_high, (long long)fold4_low);
    while (count >= 64) {
        x0 = fold(x0, by4, _mm_loadu_si128((const __m128i *)(cursor + 0)));
        x1 = fold(x1, by4, _mm_loadu_si128((const __m128i *)(cursor + 16)));
        x2 = fold(x2, by4, _mm_loadu_si128((const __m128i *)(cursor + 32)));
        x3 = fold(x3, by4, _mm_loadu_si128((const __m128i *)(cursor + 48)));
        cursor += 64;
        count -= 64;
    }

    const __m128i by1 = _mm_set_epi64x((long long)fold1_high, (long long)fold1_low);
    __m128i x = fold(x0, by1, x1);
    x = fold(x, by1, x2);
    x = fold(x, by1, x3);
    while (count >= 16) {
        x = fold(x, by1, _mm_loadu_si128((const __m128i *)cursor));
        cursor += 16;
        count -= 16;
    }

    const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
    // 128 bits to 64 (the low half moved past the high half).
    __m128i folded = _mm_xor_si128(_mm_srli_si128(x, 8), _mm_clmulepi64_si128(x, by1, 0x10));
    // 64 bits to 32.
    const __m128i by64 = _mm_set_epi64x(0, (long long)fold64);
    folded = _mm_xor_si128(_mm_srli_si128(folded, 4), _mm_clmulepi64_si128(_mm_and_si128(folded, mask32), by64, 0x00));
    // Barrett reduction to the 32-bit remainder.
    const __m128i reduction = _mm_set_epi64x((long long)barrett, (long long)polynomial);
    __m128i quotient = _mm_clmulepi64_si128(_mm_and_si128(folded, mask32), reduction, 0x10);
    __m128i product = _mm_clmulepi64_si128(_mm_and_si128(quotient, mask32), reduction, 0x00);
    *state = (uint32_t)_mm_extract_epi32(_mm_xor_si128(folded, product), 1);
    return (size_t)(cursor - bytes);
}

int stash_crc32_fold_available(void) {
    // -1 until the first call asks the processor; threads racing there store the same answer.
    static int supported = -1;
    int known = __atomic_load_n(&supported, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
        __atomic_store_n(&supported, known, __ATOMIC_RELAXED);
    }
    return known;
}

size_t stash_crc32_fold(uint32_t *state, const uint8_t *bytes, size_t count) {
    if (count < 64 || !stash_crc32_fold_available()) return 0;
    return fold_pclmul(state, bytes, count);
}

#else

int stash_crc32_fold_available(void) { return 0; }

size_t stash_crc32_fold(uint32_t *state, const uint8_t *bytes, size_t count) {
    (void)state;
    (void)bytes;
    (void)count;
    return 0;
}

#endif
