#ifndef MX_MLW_DECODE_H
#define MX_MLW_DECODE_H
/* Decoder of the compressed weight streams Vela writes for Ethos-U55/U65 ("MLW": palette, Golomb-Rice
 * codes, zero runs; README.md in this folder describes the format). The stream is untrusted: every read is
 * checked against its length and every write against the output's capacity, so any bytes decode to either
 * the values or an error code, never to an access outside the two buffers. No allocation, no state kept
 * between calls: all working storage is on the stack (about 1.5 KB). */
#include <stddef.h>
#include <stdint.h>

enum {
  MX_MLW_OK = 0,
  MX_MLW_ERR_ARGUMENT = -1,  /* out_count is NULL, or stream/out is NULL with a non-zero size */
  MX_MLW_ERR_TRUNCATED = -2, /* the bytes end inside a slice, or before an end-of-stream marker */
  MX_MLW_ERR_MALFORMED = -3, /* a field holds a value the format does not allow (see README.md) */
  MX_MLW_ERR_CAPACITY = -4,  /* the decoded values would not fit in out_capacity */
};

/* Decodes the `stream_bytes` bytes at `stream` (one encoded stream, or several back to back, as the codec's
 * own decoder accepts; the bytes must end right after an end-of-stream marker and its padding) into signed
 * weights, written to out[0 .. *out_count). Returns MX_MLW_OK or a negative MX_MLW_ERR_*; on error
 * *out_count is 0 and out[0 .. out_capacity) may have been written. */
int mx_mlw_decode(const uint8_t *stream, size_t stream_bytes, int16_t *out, size_t out_capacity, size_t *out_count);

/* A short English text for a code returned by mx_mlw_decode ("unknown error" for any other value). */
const char *mx_mlw_error_text(int code);

#endif
