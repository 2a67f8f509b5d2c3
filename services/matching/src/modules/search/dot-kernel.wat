;; The dot-product kernel of the vector index (see dot-kernel.ts), WebAssembly
;; with 128-bit SIMD: four f32x4 accumulators, 16 floats per iteration.
;; Compiled into dot-kernel-bytes.ts by dot-kernel-compile.ts; a spec checks
;; that the bytes there are this file's.
(module
  (memory (export "memory") 1 65536)
  ;; out[r] = q · row r, for r in [0, rows). q, m (the first row) and out are
  ;; byte offsets into memory; a row is `stride` floats, a multiple of 16.
  (func (export "dots") (param $q i32) (param $m i32) (param $rows i32) (param $stride i32) (param $out i32)
    (local $r i32) (local $i i32) (local $rowBytes i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (block $done
      (loop $rowsLoop
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $dimsLoop
          (local.set $a0 (f32x4.add (local.get $a0)
            (f32x4.mul (v128.load (i32.add (local.get $q) (local.get $i)))
                       (v128.load (i32.add (local.get $m) (local.get $i))))))
          (local.set $a1 (f32x4.add (local.get $a1)
            (f32x4.mul (v128.load offset=16 (i32.add (local.get $q) (local.get $i)))
                       (v128.load offset=16 (i32.add (local.get $m) (local.get $i))))))
          (local.set $a2 (f32x4.add (local.get $a2)
            (f32x4.mul (v128.load offset=32 (i32.add (local.get $q) (local.get $i)))
                       (v128.load offset=32 (i32.add (local.get $m) (local.get $i))))))
          (local.set $a3 (f32x4.add (local.get $a3)
            (f32x4.mul (v128.load offset=48 (i32.add (local.get $q) (local.get $i)))
                       (v128.load offset=48 (i32.add (local.get $m) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 64)))
          (br_if $dimsLoop (i32.lt_u (local.get $i) (local.get $rowBytes))))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1))
                                  (f32x4.add (local.get $a2) (local.get $a3))))
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $m (i32.add (local.get $m) (local.get $rowBytes)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rowsLoop)))))
