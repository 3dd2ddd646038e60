(module
  ;; stripefs GF(2^8) matrix kernel (common/gf-kernel.ts drives it; compiled
  ;; by scripts/gen-gf-kernel.mjs into common/gf-kernel-wasm.ts).
  ;;
  ;; matmul: dst[r][i] = XOR over j of c[r][j] * src[j][i], for i < len
  ;; (len a multiple of 64), 64 bytes per step in four 16-byte vectors.
  ;; A product c * v is split by nibbles: c * v = c * (v & 15) ^ c * (v >> 4 << 4),
  ;; each half one 16-entry table lookup (i8x16.swizzle) per byte.
  ;; tables: 32 bytes per (r, j), row-major: c * 0..15, then c * (0..15 << 4).
  ;; srcs / dsts: arrays of i32 byte offsets of the k inputs and the rows outputs.
  (memory (export "memory") 1)
  (func (export "matmul") (param $tables i32) (param $srcs i32) (param $k i32) (param $dsts i32) (param $rows i32) (param $len i32)
    (local $off i32) (local $r i32) (local $j i32) (local $t i32) (local $p i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $v v128) (local $lo v128) (local $hi v128) (local $mask v128)
    (local.set $mask (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $off) (local.get $len)))
        (local.set $r (i32.const 0))
        (local.set $t (local.get $tables))
        (block $rows_done
          (loop $each_row
            (br_if $rows_done (i32.ge_u (local.get $r) (local.get $rows)))
            (local.set $a0 (v128.const i64x2 0 0))
            (local.set $a1 (v128.const i64x2 0 0))
            (local.set $a2 (v128.const i64x2 0 0))
            (local.set $a3 (v128.const i64x2 0 0))
            (local.set $j (i32.const 0))
            (block $inputs_done
              (loop $each_input
                (br_if $inputs_done (i32.ge_u (local.get $j) (local.get $k)))
                (local.set $lo (v128.load (local.get $t)))
                (local.set $hi (v128.load offset=16 (local.get $t)))
                (local.set $p (i32.add (i32.load (i32.add (local.get $srcs) (i32.shl (local.get $j) (i32.const 2)))) (local.get $off)))
                (local.set $v (v128.load (local.get $p)))
                (local.set $a0 (v128.xor (local.get $a0) (v128.xor
                  (i8x16.swizzle (local.get $lo) (v128.and (local.get $v) (local.get $mask)))
                  (i8x16.swizzle (local.get $hi) (i8x16.shr_u (local.get $v) (i32.const 4))))))
                (local.set $v (v128.load offset=16 (local.get $p)))
                (local.set $a1 (v128.xor (local.get $a1) (v128.xor
                  (i8x16.swizzle (local.get $lo) (v128.and (local.get $v) (local.get $mask)))
                  (i8x16.swizzle (local.get $hi) (i8x16.shr_u (local.get $v) (i32.const 4))))))
                (local.set $v (v128.load offset=32 (local.get $p)))
                (local.set $a2 (v128.xor (local.get $a2) (v128.xor
                  (i8x16.swizzle (local.get $lo) (v128.and (local.get $v) (local.get $mask)))
                  (i8x16.swizzle (local.get $hi) (i8x16.shr_u (local.get $v) (i32.const 4))))))
                (local.set $v (v128.load offset=48 (local.get $p)))
                (local.set $a3 (v128.xor (local.get $a3) (v128.xor
                  (i8x16.swizzle (local.get $lo) (v128.and (local.get $v) (local.get $mask)))
                  (i8x16.swizzle (local.get $hi) (i8x16.shr_u (local.get $v) (i32.const 4))))))
                (local.set $t (i32.add (local.get $t) (i32.const 32)))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $each_input)))
            (local.set $p (i32.add (i32.load (i32.add (local.get $dsts) (i32.shl (local.get $r) (i32.const 2)))) (local.get $off)))
            (v128.store (local.get $p) (local.get $a0))
            (v128.store offset=16 (local.get $p) (local.get $a1))
            (v128.store offset=32 (local.get $p) (local.get $a2))
            (v128.store offset=48 (local.get $p) (local.get $a3))
            (local.set $r (i32.add (local.get $r) (i32.const 1)))
            (br $each_row)))
        (local.set $off (i32.add (local.get $off) (i32.const 64)))
        (br $blocks)))))
