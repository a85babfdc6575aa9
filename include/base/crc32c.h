/* crc32c.h: CRC-32C (Castagnoli, the polynomial 0x1EDC6F41 reflected,
 * RFC 3720 appendix B.4), as TFRecord files check their records with. */
#ifndef LOGDOWN_CRC32C_H
#define LOGDOWN_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of the n bytes at p, continuing from crc (0 to start):
 * crc32c(crc32c(0, a, n), b, m) is the CRC of a then b.  The check value
 * of "123456789" is 0xE3069283. */
uint32_t crc32c(uint32_t crc, const void *p, size_t n);

/* TFRecord's masked form of a CRC: rotated right by 15 bits, plus
 * 0xa282ead8, so that a CRC stored in the data it covers is not a CRC
 * of itself. */
static inline uint32_t crc32c_mask(uint32_t crc)
{
	return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

#endif
