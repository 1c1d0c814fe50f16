// A raw LZMA (LZMA1) decoder, built as its own tiny WebAssembly module (6 KB, 2.2 KB gzip). The page's module
// ships compressed by xz's LZMA1 filter (scripts/embed-wasm.mjs): ~20 % smaller after gzip than the
// binary itself. wasm/pre.js instantiates this decoder synchronously inside the module factory and
// decodes the binary (~12-20 ms for 0.6 MB in V8; the JavaScript decoder tried first took 27-52 ms).
// It follows Igor Pavlov's reference decoder (LZMA SDK, DOC/lzma-specification.txt, LzmaSpec.cpp)
// with the properties fixed by the encoder's options: lc = 3, lp = 0, pb = 0. The decoded size is
// known, so the stream needs no end marker (one is accepted). Every read and write is bounds-checked:
// a corrupt stream returns an error code, never reads or writes outside its buffers.
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;

enum { LC = 3 };  // literal context bits (the encoder's lc)
// Offsets into one array of 11-bit probabilities (LzmaSpec.cpp CLzmaDecoder, in its order).
enum {
  IS_MATCH = 0,          // 12 states x 16 pos states
  IS_REP = 192,          // 12
  IS_REP_G0 = 204,       // 12
  IS_REP_G1 = 216,       // 12
  IS_REP_G2 = 228,       // 12
  IS_REP0_LONG = 240,    // 12 x 16
  POS_SLOT = 432,        // 4 length states x 64
  SPEC_POS = 688,        // 1 + 128 - 14
  ALIGN = 803,           // 16
  LEN = 819,             // choice, choice2, low 16 x 8, mid 16 x 8, high 256
  REP_LEN = 1333,        // the same
  LITERAL = 1847,        // 0x300 << lc
  NPROBS = LITERAL + (0x300 << LC)
};

static u16 p[NPROBS];
static const u8* in;
static const u8* in_end;
static u32 range, code;
static int overrun;

static void norm(void) {
  if (range < 0x1000000u) {
    range <<= 8;
    code <<= 8;
    if (in < in_end) code |= *in++;
    else overrun = 1;
  }
}

static u32 bit(u32 k) {
  u32 bound = (range >> 11) * p[k], b;
  if (code < bound) {
    range = bound;
    p[k] += (2048 - p[k]) >> 5;
    b = 0;
  } else {
    range -= bound;
    code -= bound;
    p[k] -= p[k] >> 5;
    b = 1;
  }
  norm();
  return b;
}

static u32 tree(u32 k, int n) {
  u32 m = 1;
  for (int j = 0; j < n; j++) m = (m << 1) | bit(k + m);
  return m - (1u << n);
}

static u32 reverse(u32 k, int n) {
  u32 m = 1, s = 0;
  for (int j = 0; j < n; j++) {
    u32 b = bit(k + m);
    m = (m << 1) | b;
    s |= b << j;
  }
  return s;
}

static u32 direct(int n) {
  u32 s = 0;
  for (; n > 0; n--) {
    range >>= 1;
    u32 b = code >= range;
    if (b) code -= range;
    s = (s << 1) | b;
    norm();
  }
  return s;
}

static u32 length(u32 k) {  // pb = 0: one pos state
  if (!bit(k)) return tree(k + 2, 3);
  if (!bit(k + 1)) return 8 + tree(k + 130, 3);
  return 16 + tree(k + 258, 8);
}

// Decodes the raw stream src[0, n) into out[0, size). Returns 0 on success, 1 for a bad header,
// 2 for a distance before the start of the output, 3 for a stream that ends early or short.
__attribute__((export_name("decode"))) int decode(const u8* src, u32 n, u8* out, u32 size) {
  for (u32 i = 0; i < NPROBS; i++) p[i] = 1024;
  if (n < 5 || src[0] != 0) return 1;
  range = 0xffffffffu;
  code = 0;
  for (int i = 1; i < 5; i++) code = (code << 8) | src[i];
  in = src + 5;
  in_end = src + n;
  overrun = 0;
  u32 state = 0, rep0 = 0, rep1 = 0, rep2 = 0, rep3 = 0, pos = 0, len;
  while (pos < size && !overrun) {
    if (!bit(IS_MATCH + (state << 4))) {  // a literal
      u32 base = LITERAL + 0x300 * ((pos > 0 ? out[pos - 1] : 0) >> (8 - LC)), s = 1;
      if (state >= 7) {  // after a match: decoded against the byte at rep0
        if (rep0 >= pos) return 2;
        u32 match = out[pos - rep0 - 1];
        do {
          u32 m = (match >> 7) & 1;
          match <<= 1;
          u32 b = bit(base + ((1 + m) << 8) + s);
          s = (s << 1) | b;
          if (m != b) break;
        } while (s < 0x100);
      }
      while (s < 0x100) s = (s << 1) | bit(base + s);
      out[pos++] = (u8)s;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    if (!bit(IS_REP + state)) {  // a match with a new distance
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      len = length(LEN);
      state = state < 7 ? 7 : 10;
      u32 slot = tree(POS_SLOT + (len < 3 ? len : 3) * 64, 6);
      if (slot < 4) {
        rep0 = slot;
      } else {
        int bits = (int)(slot >> 1) - 1;
        u32 d = (2 | (slot & 1)) << bits;
        if (slot < 14) {
          d += reverse(SPEC_POS + d - slot, bits);
        } else {
          d += direct(bits - 4) << 4;
          d += reverse(ALIGN, 4);
        }
        if (d == 0xffffffffu) break;  // the end marker
        rep0 = d;
      }
    } else {  // a match at one of the last four distances
      if (!bit(IS_REP_G0 + state)) {
        if (!bit(IS_REP0_LONG + (state << 4))) {  // one byte at rep0
          state = state < 7 ? 9 : 11;
          if (rep0 >= pos) return 2;
          out[pos] = out[pos - rep0 - 1];
          pos++;
          continue;
        }
      } else {
        u32 dist;
        if (!bit(IS_REP_G1 + state)) {
          dist = rep1;
        } else {
          if (!bit(IS_REP_G2 + state)) {
            dist = rep2;
          } else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      len = length(REP_LEN);
      state = state < 7 ? 8 : 11;
    }
    if (rep0 >= pos) return 2;
    for (len += 2; len > 0 && pos < size; len--, pos++) out[pos] = out[pos - rep0 - 1];
  }
  return pos == size && !overrun ? 0 : 3;
}
