// crc32c (Castagnoli) for stripefs with the SSE4.2 crc32 instruction, as a
// Node-API addon (built by scripts/build-native.mjs; common/checksum.ts falls
// back to @node-rs/crc32 when it is missing).
//
// One crc32 instruction consumes 8 bytes but takes 3 cycles before the next
// one on the same register can start, so a single stream runs at a third of
// the unit's throughput. Long buffers are therefore cut into three lanes
// computed together, and the lanes' registers are joined afterwards: the CRC
// register is linear in its starting state, so the register after A then B
// equals shift_B(register after A) XOR (register of B started from 0), where
// shift_B advances a register over |B| zero bytes. shift is a table per byte
// of the register, built once by running the instruction over zero bytes.
#include <node_api.h>
#include <nmmintrin.h>
#include <stdint.h>
#include <string.h>

#define LANE_LONG 4096
#define LANE_SHORT 256

static uint32_t shift_long[4][256];
static uint32_t shift_short[4][256];

__attribute__((target("sse4.2"))) static uint32_t crc_raw(uint32_t crc, const uint8_t *p, size_t n) {
  while (n > 0 && ((uintptr_t)p & 7) != 0) {
    crc = _mm_crc32_u8(crc, *p++);
    n--;
  }
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t word;
    memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
    p += 8;
    n -= 8;
  }
  crc = (uint32_t)c;
  while (n-- > 0) crc = _mm_crc32_u8(crc, *p++);
  return crc;
}

static uint32_t shift(uint32_t table[4][256], uint32_t crc) {
  return table[0][crc & 255] ^ table[1][(crc >> 8) & 255] ^ table[2][(crc >> 16) & 255] ^ table[3][crc >> 24];
}

static void build_shift(uint32_t table[4][256], size_t zeros) {
  static const uint8_t nothing[LANE_LONG] = {0};
  for (int byte = 0; byte < 4; byte++)
    for (uint32_t v = 0; v < 256; v++) table[byte][v] = crc_raw(v << (8 * byte), nothing, zeros);
}

__attribute__((target("sse4.2"))) static uint32_t lanes(uint32_t crc, const uint8_t **pp, size_t *np,
                                                        size_t lane, uint32_t table[4][256]) {
  const uint8_t *p = *pp;
  size_t n = *np;
  while (n >= 3 * lane) {
    uint64_t a = crc, b = 0, c = 0;
    for (size_t i = 0; i < lane; i += 8) {
      uint64_t wa, wb, wc;
      memcpy(&wa, p + i, 8);
      memcpy(&wb, p + lane + i, 8);
      memcpy(&wc, p + 2 * lane + i, 8);
      a = _mm_crc32_u64(a, wa);
      b = _mm_crc32_u64(b, wb);
      c = _mm_crc32_u64(c, wc);
    }
    crc = shift(table, (uint32_t)a) ^ (uint32_t)b;
    crc = shift(table, crc) ^ (uint32_t)c;
    p += 3 * lane;
    n -= 3 * lane;
  }
  *pp = p;
  *np = n;
  return crc;
}

static uint32_t crc32c(uint32_t previous, const uint8_t *p, size_t n) {
  uint32_t crc = ~previous;
  crc = lanes(crc, &p, &n, LANE_LONG, shift_long);
  crc = lanes(crc, &p, &n, LANE_SHORT, shift_short);
  return ~crc_raw(crc, p, n);
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return NULL;
}

static int bytes_of(napi_env env, napi_value value, const uint8_t **data, size_t *length) {
  bool is_typed = false;
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  void *start;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed) return 0;
  if (napi_get_typedarray_info(env, value, &type, length, &start, &buffer, &offset) != napi_ok) return 0;
  if (type != napi_uint8_array) return 0;
  *data = (const uint8_t *)start;
  return 1;
}

// crc32c(data: Uint8Array, previous?: number): number
static napi_value js_crc32c(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok) return NULL;
  const uint8_t *data = NULL;
  size_t length = 0;
  if (argc < 1 || !bytes_of(env, args[0], &data, &length)) return fail(env, "crc32c: data must be a Uint8Array");
  uint32_t previous = 0;
  if (argc > 1) {
    napi_valuetype t;
    napi_typeof(env, args[1], &t);
    if (t != napi_undefined && napi_get_value_uint32(env, args[1], &previous) != napi_ok)
      return fail(env, "crc32c: previous must be a number");
  }
  napi_value out;
  napi_create_uint32(env, crc32c(previous, data, length), &out);
  return out;
}

NAPI_MODULE_INIT() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("sse4.2")) {
    napi_throw_error(env, "ERR_STRIPEFS_NO_SSE42", "this CPU has no SSE4.2 crc32 instruction");
    return NULL;
  }
  build_shift(shift_long, LANE_LONG);
  build_shift(shift_short, LANE_SHORT);
  napi_value fn;
  napi_create_function(env, "crc32c", NAPI_AUTO_LENGTH, js_crc32c, NULL, &fn);
  napi_set_named_property(env, exports, "crc32c", fn);
  return exports;
}
