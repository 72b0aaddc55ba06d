/* Decoder of Vela's compressed weight streams; the format is described in README.md. Our own code, written
 * from that description. */
#include "mlw_decode.h"

#include <stdbool.h>
#include <string.h>

/* Slice header fields, in stream order, and their widths in bits. */
enum {
  ZDIV_BITS = 3,
  SLICELEN_BITS = 15,
  WDIV_BITS = 3,
  WTRUNC_BITS = 1,
  NEWPAL_BITS = 1,
  DIROFS_BITS = 5,
  PALSIZE_BITS = 5,
  PALBITS_BITS = 3,
};

enum {
  ZDIV_LARGEST = 3,   /* 0..3: zero runs on, with this Golomb-Rice divisor (as a shift) */
  ZDIV_NO_RUNS = 6,   /* zero runs off */
  ZDIV_END = 7,       /* end of stream: skip to the next byte boundary */
  WDIV_LARGEST = 5,   /* 0..5: weight index Golomb-Rice divisor (as a shift) */
  WDIV_PLAIN = 7,     /* weight indices stored as plain fixed-width numbers */
  PALETTE_MAX = 32,   /* entries */
  INDEX_LIMIT = 512,  /* a weight index is a 9-bit number */
  CHUNK_SYMBOLS = 12, /* most symbols one chunk of a lane can end */
  W_UNARY0_BITS = 12, /* first unary word of a weight chunk */
  RING = 64,          /* decoded values waiting for their place in the output (power of two) */
  BALANCE_LIMIT = 8,  /* the weight lane may run at most this many symbols ahead of the zero-run lane */
};

/* A weight quotient this large always gives an index >= INDEX_LIMIT (an error if it is used); a zero-run
 * quotient this large exceeds any buffer of int16_t. Carries saturate there instead of overflowing. */
#define W_QUOTIENT_CAP 1023u
#define Z_QUOTIENT_CAP ((uint64_t)1 << 40)

/* ---- bits: least significant bit of each byte first; a field's first bit is its least significant ---- */

typedef struct bit_reader {
  const uint8_t *next; /* next byte to load */
  const uint8_t *end;
  uint64_t bits;       /* loaded, not yet taken; the next bit is bit 0 */
  unsigned count;      /* valid bits in `bits` */
} bit_reader;

static void refill(bit_reader *br) {
  while (br->count <= 56 && br->next < br->end) {
    br->bits |= (uint64_t)*br->next++ << br->count;
    br->count += 8;
  }
}

/* Takes an n-bit field (n <= 32); false when the stream has fewer bits left. */
static inline bool take(bit_reader *br, unsigned n, uint32_t *field) {
  if (br->count < n) {
    refill(br);
    if (br->count < n) return false;
  }
  *field = (uint32_t)(br->bits & (((uint64_t)1 << n) - 1));
  br->bits >>= n;
  br->count -= n;
  return true;
}

/* Drops the rest of the byte the last field ended in. Bytes load whole, so that is count mod 8 bits. */
static void align_to_byte(bit_reader *br) {
  br->bits >>= br->count & 7u;
  br->count &= ~7u;
}

static bool at_end(const bit_reader *br) { return br->count == 0 && br->next == br->end; }

static unsigned popcount12(uint32_t x) {
  x = x - ((x >> 1) & 0x555u);
  x = (x & 0x333u) + ((x >> 2) & 0x333u);
  x = (x + (x >> 4)) & 0x0f0fu;
  return (x + (x >> 8)) & 0x1fu;
}

/* ---- decoding state ---- */

typedef struct palette {
  uint16_t entry[PALETTE_MAX]; /* folded values: magnitude << 1 | sign */
  unsigned size;               /* 0: no palette, every index is direct */
  unsigned bits;               /* width of an entry; also the plain index width when size is 0 */
  unsigned direct_offset;      /* an index past the palette maps to index - size + direct_offset */
  bool zero_runs;              /* whether the slices using it code zeros as runs */
} palette;

typedef struct slice {
  bool zero_runs;
  bool plain;          /* weight indices are plain numbers of `wdiv` bits (no unary part) */
  bool trunc;          /* weight quotients are 0, 1 or 2, one unary position each */
  unsigned wdiv;       /* remainder bits of a weight index */
  unsigned zdiv;       /* remainder bits of a zero run */
  unsigned w_positions; /* unary positions in a weight chunk: 12, or 8 for plain indices wider than 5 bits */
  unsigned z_positions; /* unary bits in a zero-run chunk: 12, or 8 for zdiv 3 */
  unsigned lead;       /* 1 when the runs start with one before the first weight (a slice setting a palette) */
} slice;

/* One of the two symbol streams of a slice (weight indices, zero runs). A chunk ends some symbols' unary
 * parts; their remainders follow after the next chunk's unary parts, hence the two quotient buffers. */
typedef struct lane {
  uint32_t total;    /* symbols the slice codes in this lane */
  uint32_t parsed;   /* symbols whose unary part has ended (counts padding symbols past `total`) */
  uint32_t done;     /* symbols complete with their remainder (at most `total`) */
  uint32_t emitted;  /* symbols written to the output */
  uint64_t carry;    /* quotient of a symbol whose unary part goes on in the next chunk */
  uint64_t q[2][CHUNK_SYMBOLS];
  unsigned cur;      /* q[cur]: the chunk being parsed; q[cur ^ 1]: the one waiting for remainders */
  unsigned waiting;  /* symbols in q[cur ^ 1] */
  bool waiting_on;   /* the previous chunk included this lane */
} lane;

typedef struct sink {
  int16_t *out;
  size_t capacity;
  size_t count;
} sink;

static int16_t weight_value(const palette *pal, uint32_t index) {
  uint32_t folded = index < pal->size ? pal->entry[index] : index - pal->size + pal->direct_offset;
  int16_t magnitude = (int16_t)(folded >> 1);
  return (folded & 1u) ? (int16_t)-magnitude : magnitude;
}

/* Writes the decoded values whose turn has come: runs and weights alternate, starting with a run when
 * s->lead is 1. The rings hold every value decoded but not yet written: the lanes' balance rule keeps
 * the weight lane under 8 + 12 symbols ahead of the run lane and the run lane at most 12 ahead, remainders
 * lag one chunk, and this runs after every chunk, so fewer than RING values ever wait. */
static int emit(const slice *s, lane *w, lane *z, const int16_t *weights, const uint64_t *runs, sink *o) {
  for (;;) {
    if (s->zero_runs && z->emitted < w->emitted + s->lead) {
      if (z->emitted == z->done) return MX_MLW_OK;
      uint64_t run = runs[z->emitted % RING];
      if (run > o->capacity - o->count) return MX_MLW_ERR_CAPACITY;
      if (run > 0) {
        memset(o->out + o->count, 0, (size_t)run * sizeof(int16_t));
        o->count += (size_t)run;
      }
      z->emitted++;
    } else {
      if (w->emitted == w->done) return MX_MLW_OK;
      if (o->count == o->capacity) return MX_MLW_ERR_CAPACITY;
      o->out[o->count++] = weights[w->emitted % RING];
      w->emitted++;
    }
  }
}

/* Unary part of a weight chunk: a set bit of unary0 is a 1 or, when its unary1 bit is set, a 2; a
 * quotient is a run of 2s ended by a 0 or a 1 (in trunc mode every position is a whole quotient). */
static void parse_weight_unary(const slice *s, lane *w, uint32_t unary0, uint32_t unary1) {
  uint64_t *q = w->q[w->cur];
  unsigned n = 0;
  for (unsigned i = 0; i < s->w_positions; i++) {
    unsigned code = 0;
    if ((unary0 >> i) & 1u) {
      code = 1u + (unary1 & 1u);
      unary1 >>= 1;
    }
    w->carry += code;
    if (w->carry > W_QUOTIENT_CAP) w->carry = W_QUOTIENT_CAP;
    if (code < 2 || s->trunc) {
      q[n++] = w->carry;
      w->carry = 0;
    }
  }
  w->parsed += n;
  w->waiting = n;
}

/* Unary part of a zero-run chunk: set bits count up, a clear bit ends a quotient. */
static void parse_run_unary(const slice *s, lane *z, uint32_t unary) {
  uint64_t *q = z->q[z->cur];
  unsigned n = 0;
  for (unsigned i = 0; i < s->z_positions; i++) {
    if ((unary >> i) & 1u) {
      if (z->carry < Z_QUOTIENT_CAP) z->carry++;
    } else {
      q[n++] = z->carry;
      z->carry = 0;
    }
  }
  z->parsed += n;
  z->waiting = n;
}

static int decode_slice(bit_reader *br, const slice *s, const palette *pal, uint32_t nweights, sink *o) {
  int16_t weights[RING];
  uint64_t runs[RING];
  lane w = {.total = nweights};
  lane z = {.total = s->zero_runs ? nweights + s->lead : 0};
  for (;;) {
    int64_t balance = s->zero_runs ? (int64_t)w.parsed - (int64_t)z.parsed : 0;
    bool w_on = w.parsed < w.total && balance < BALANCE_LIMIT;
    bool z_on = s->zero_runs && balance >= 0 && z.parsed < z.total;
    if (!w_on && !z_on && !w.waiting_on && !z.waiting_on) break;
    w.cur ^= 1u;
    z.cur ^= 1u;
    unsigned w_waiting = w.waiting, z_waiting = z.waiting;

    uint32_t unary0 = 0, unary1 = 0, zunary = 0;
    if (w_on && !s->plain && !take(br, W_UNARY0_BITS, &unary0)) return MX_MLW_ERR_TRUNCATED;
    if (z_on) {
      if (!take(br, s->z_positions, &zunary)) return MX_MLW_ERR_TRUNCATED;
      parse_run_unary(s, &z, zunary);
    }
    if (w_on) {
      if (!take(br, popcount12(unary0), &unary1)) return MX_MLW_ERR_TRUNCATED;
      parse_weight_unary(s, &w, unary0, unary1);
    }

    /* Remainders of the previous chunk's symbols; padding symbols past the lane's total have none. */
    if (w.waiting_on) {
      const uint64_t *q = w.q[w.cur ^ 1u];
      for (unsigned i = 0; i < w_waiting && w.done < w.total; i++) {
        uint32_t rem;
        if (!take(br, s->wdiv, &rem)) return MX_MLW_ERR_TRUNCATED;
        uint32_t index = ((uint32_t)q[i] << s->wdiv) + rem;
        if (index >= INDEX_LIMIT) return MX_MLW_ERR_MALFORMED;
        weights[w.done % RING] = weight_value(pal, index);
        w.done++;
      }
    }
    if (z.waiting_on) {
      const uint64_t *q = z.q[z.cur ^ 1u];
      for (unsigned i = 0; i < z_waiting && z.done < z.total; i++) {
        uint32_t rem;
        if (!take(br, s->zdiv, &rem)) return MX_MLW_ERR_TRUNCATED;
        runs[z.done % RING] = (q[i] << s->zdiv) + rem;
        z.done++;
      }
    }
    if (!w_on) w.waiting = 0;
    if (!z_on) z.waiting = 0;
    w.waiting_on = w_on;
    z.waiting_on = z_on;

    int e = emit(s, &w, &z, weights, runs, o);
    if (e != MX_MLW_OK) return e;
  }
  /* The balance rule lets no lane stop short of its total; checked all the same. */
  if (w.emitted != w.total || z.emitted != z.total) return MX_MLW_ERR_MALFORMED;
  return MX_MLW_OK;
}

static int read_palette(bit_reader *br, palette *pal) {
  uint32_t direct_offset, size, bits;
  if (!take(br, DIROFS_BITS, &direct_offset) || !take(br, PALSIZE_BITS, &size) || !take(br, PALBITS_BITS, &bits)) {
    return MX_MLW_ERR_TRUNCATED;
  }
  pal->direct_offset = direct_offset;
  pal->size = size == 0 ? 0 : size + 1; /* a palette has 2 to 32 entries */
  pal->bits = bits + 2;                 /* 2 to 9 bits */
  for (unsigned i = 0; i < pal->size; i++) {
    uint32_t entry;
    if (!take(br, pal->bits, &entry)) return MX_MLW_ERR_TRUNCATED;
    pal->entry[i] = (uint16_t)entry;
  }
  return MX_MLW_OK;
}

static int decode_stream(bit_reader *br, sink *o) {
  palette pal = {.size = 0};
  bool have_palette = false; /* the first slice after the start or an end marker must set one */
  for (;;) {
    uint32_t zdiv, nweights_m1, wdiv, trunc, new_palette;
    if (!take(br, ZDIV_BITS, &zdiv)) return MX_MLW_ERR_TRUNCATED;
    if (zdiv == ZDIV_END) {
      align_to_byte(br);
      if (at_end(br)) return MX_MLW_OK;
      have_palette = false;
      continue;
    }
    if (zdiv > ZDIV_LARGEST && zdiv != ZDIV_NO_RUNS) return MX_MLW_ERR_MALFORMED;
    if (!take(br, SLICELEN_BITS, &nweights_m1) || !take(br, WDIV_BITS, &wdiv) || !take(br, WTRUNC_BITS, &trunc) ||
        !take(br, NEWPAL_BITS, &new_palette)) {
      return MX_MLW_ERR_TRUNCATED;
    }
    if (wdiv > WDIV_LARGEST && wdiv != WDIV_PLAIN) return MX_MLW_ERR_MALFORMED;

    slice s = {.zero_runs = zdiv != ZDIV_NO_RUNS, .plain = wdiv == WDIV_PLAIN, .trunc = trunc != 0};
    if (new_palette) {
      int e = read_palette(br, &pal);
      if (e != MX_MLW_OK) return e;
      pal.zero_runs = s.zero_runs;
      have_palette = true;
    } else if (!have_palette || pal.zero_runs != s.zero_runs) {
      /* zero is left out of a palette made for zero runs, so a slice cannot switch modes and keep it */
      return MX_MLW_ERR_MALFORMED;
    }

    s.zdiv = s.zero_runs ? zdiv : 0;
    s.z_positions = zdiv < 3 ? 12 : 8;
    s.lead = (s.zero_runs && new_palette) ? 1 : 0;
    if (s.plain) {
      unsigned width = 0; /* the palette's index width, else the palette's entry width */
      if (pal.size > 0) {
        while ((1u << width) < pal.size) width++;
      } else {
        width = pal.bits;
      }
      s.wdiv = width;
    } else {
      s.wdiv = wdiv;
    }
    s.w_positions = (s.plain && s.wdiv > 5) ? 8 : 12;

    int e = decode_slice(br, &s, &pal, nweights_m1 + 1, o);
    if (e != MX_MLW_OK) return e;
  }
}

int mx_mlw_decode(const uint8_t *stream, size_t stream_bytes, int16_t *out, size_t out_capacity, size_t *out_count) {
  if (out_count == NULL) return MX_MLW_ERR_ARGUMENT;
  *out_count = 0;
  if ((stream == NULL && stream_bytes > 0) || (out == NULL && out_capacity > 0)) return MX_MLW_ERR_ARGUMENT;
  static const uint8_t nothing[1] = {0}; /* a NULL stream of 0 bytes: no arithmetic on a null pointer */
  bit_reader br = {.next = stream ? stream : nothing, .end = (stream ? stream : nothing) + stream_bytes};
  sink o = {.out = out, .capacity = out_capacity, .count = 0};
  int e = decode_stream(&br, &o);
  if (e == MX_MLW_OK) *out_count = o.count;
  return e;
}

const char *mx_mlw_error_text(int code) {
  switch (code) {
    case MX_MLW_OK: return "ok";
    case MX_MLW_ERR_ARGUMENT: return "invalid argument";
    case MX_MLW_ERR_TRUNCATED: return "weight stream is truncated";
    case MX_MLW_ERR_MALFORMED: return "weight stream is malformed";
    case MX_MLW_ERR_CAPACITY: return "decoded weights exceed the output capacity";
    default: return "unknown error";
  }
}
