#ifndef C_STASH_CHECKSUM_H
#define C_STASH_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// Advances the CRC-32 (IEEE 802.3, reflected) register `*state` over as many whole 16-byte
/// blocks of `bytes` as the processor's carry-less multiply can take (at least 64 bytes, or
/// none), and returns how many bytes it consumed; the caller finishes the rest with its
/// table. Returns 0 where the processor has no carry-less multiply (or the build targets
/// another architecture), so the caller then does all the work.
///
/// `*state` is the register as the table method keeps it (not inverted on entry or exit).
/// Thread-safe: it reads only `bytes` and writes only `*state` (and, once, the cached answer
/// of `stash_crc32_fold_available`). It keeps nothing on disk; a checksum is as durable as the
/// bytes it is stored with.
size_t stash_crc32_fold(uint32_t *state, const uint8_t *bytes, size_t count);

/// Whether `stash_crc32_fold` folds on this processor (it returns 0 for every call otherwise).
/// Thread-safe: the first calls ask the processor, racing threads store the same answer.
int stash_crc32_fold_available(void);

#endif
