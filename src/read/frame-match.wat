;; The frame walk of frame-match.ts, in WebAssembly: from a node of the stack trie, the frames of the
;; input that follow its known children, compared eight bytes at a time, then the goroutine's known
;; `created by` lines and the blank line that ends it, in one call per goroutine (a substring
;; comparison in JavaScript costs a runtime call per line). Assembled into frame-match-wasm.ts by
;; scripts/build-wasm.mjs.
;;
;; Memory: [0, 65536) the piece of input being read; at 65536 the walk's result: end offset, last
;; node, the creator whose lines matched (its id + 1, 0: none), how many frames of new nodes (below),
;; (at 65552) the creator's goroutine id as f64, then (from 65560) per frame taken: the offset of its
;; call line's `(` and of its newline; from 98336 the frame texts of new nodes. At 131040: where the table of frame texts is (0: none), its
;; mask, the creator tried at nodes without one (0: none). From 131072 the nodes. A node: head
;; length, line length, flags (1: inlined), first child, next sibling (node offsets, 0: none), id
;; (the reader's), creator (offset, 0: none), text (offset of its head (`func(`) and line (file line
;; + newline), written once for all the nodes of one frame text). A frame text is a node of its own,
;; never linked into the trie: its first child is the next text of its bucket in the table. A
;; creator: head length (`created by F`), flags (1: ` in goroutine N` follows), line length, id (the
;; reader's), then its head and file line (+ newline). The input may also lie in place, anywhere above
;; the nodes (a buffer the file was read into, frame-match.ts `inputBuffer`): offsets are then the
;; memory's. Shared memory, so that growing it does not detach the views a file is being read into;
;; at most 2 GiB, so that offsets stay positive as i32 (-1 says "no").
(module
  (memory (export "memory") 3 32768 shared)
  (data (i32.const 131056) " in goroutine ")

  ;; 1 when the $n bytes at $a are those at $b.
  (func $same (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $all i32)
    (local.set $all (local.get $n))
    (block $tail
      (loop $words
        (br_if $tail (i32.lt_u (local.get $n) (i32.const 8)))
        (if (i64.ne (i64.load align=1 (local.get $a)) (i64.load align=1 (local.get $b)))
          (then (return (i32.const 0))))
        (local.set $a (i32.add (local.get $a) (i32.const 8)))
        (local.set $b (i32.add (local.get $b) (i32.const 8)))
        (local.set $n (i32.sub (local.get $n) (i32.const 8)))
        (br $words)))
    ;; The last 0-7 bytes: the eight that end there when there were eight or more (overlapping
    ;; bytes already compared), else one at a time.
    (if (i32.ge_u (local.get $all) (i32.const 8))
      (then
        (return (i64.eq
          (i64.load align=1 (i32.sub (i32.add (local.get $a) (local.get $n)) (i32.const 8)))
          (i64.load align=1 (i32.sub (i32.add (local.get $b) (local.get $n)) (i32.const 8)))))))
    (block $done
      (loop $bytes
        (br_if $done (i32.eqz (local.get $n)))
        (if (i32.ne (i32.load8_u (local.get $a)) (i32.load8_u (local.get $b)))
          (then (return (i32.const 0))))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $bytes)))
    (i32.const 1))

  ;; The frame of node $k at $p (input in [0, $end)): the call line starts with the node's head, its
  ;; arguments hold no parenthesis but the closing one, just before the newline, `(...)` exactly when
  ;; the node is inlined, and the next line is the node's line. The offset of that newline, or -1.
  (func $frame (param $p i32) (param $end i32) (param $k i32) (result i32)
    (local $hn i32) (local $t i32) (local $q i32) (local $c i32) (local $a i32) (local $w i64) (local $x i64) (local $y i64) (local $z i64) (local $sa i32) (local $sb i32) (local $sn i32) (local $ln i32)
    (local.set $hn (i32.load (local.get $k)))
    (if (i32.gt_u (i32.add (local.get $p) (local.get $hn)) (local.get $end)) (then (return (i32.const -1))))
    (local.set $t (i32.load offset=28 (local.get $k)))
    ;; The head: $same, inlined (V8 does not inline small WebAssembly functions).
    (local.set $sa (local.get $p))
    (local.set $sb (local.get $t))
    (local.set $sn (local.get $hn))
    ;; Sixteen bytes at a time (two words, one branch), then a word, then the last 0-7 bytes.
    (block $headTail
      (loop $headWords
        (br_if $headTail (i32.lt_u (local.get $sn) (i32.const 16)))
        (if (i64.ne (i64.const 0) (i64.or
              (i64.xor (i64.load align=1 (local.get $sa)) (i64.load align=1 (local.get $sb)))
              (i64.xor (i64.load offset=8 align=1 (local.get $sa)) (i64.load offset=8 align=1 (local.get $sb)))))
          (then (return (i32.const -1))))
        (local.set $sa (i32.add (local.get $sa) (i32.const 16)))
        (local.set $sb (i32.add (local.get $sb) (i32.const 16)))
        (local.set $sn (i32.sub (local.get $sn) (i32.const 16)))
        (br $headWords)))
    (if (i32.ge_u (local.get $sn) (i32.const 8))
      (then
        (if (i64.ne (i64.load align=1 (local.get $sa)) (i64.load align=1 (local.get $sb)))
          (then (return (i32.const -1))))
        (local.set $sa (i32.add (local.get $sa) (i32.const 8)))
        (local.set $sb (i32.add (local.get $sb) (i32.const 8)))
        (local.set $sn (i32.sub (local.get $sn) (i32.const 8)))))
    (if (i32.ge_u (local.get $hn) (i32.const 8))
      (then
        (if (i64.ne
              (i64.load align=1 (i32.sub (i32.add (local.get $sa) (local.get $sn)) (i32.const 8)))
              (i64.load align=1 (i32.sub (i32.add (local.get $sb) (local.get $sn)) (i32.const 8))))
          (then (return (i32.const -1)))))
      (else
        (block $headDone
          (loop $headBytes
            (br_if $headDone (i32.eqz (local.get $sn)))
            (if (i32.ne (i32.load8_u (local.get $sa)) (i32.load8_u (local.get $sb)))
              (then (return (i32.const -1))))
            (local.set $sa (i32.add (local.get $sa) (i32.const 1)))
            (local.set $sb (i32.add (local.get $sb) (i32.const 1)))
            (local.set $sn (i32.sub (local.get $sn) (i32.const 1)))
            (br $headBytes)))))
    (local.set $a (i32.sub (i32.add (local.get $p) (local.get $hn)) (i32.const 1)))
    (local.set $q (i32.add (local.get $a) (i32.const 1)))
    (block $nl
      (loop $args
        ;; Eight bytes at a time while none of them is a newline or a parenthesis.
        (block $slow
          (loop $words
            (br_if $slow (i32.gt_u (i32.add (local.get $q) (i32.const 8)) (local.get $end)))
            (local.set $w (i64.load align=1 (local.get $q)))
            ;; v has a zero byte when (v - 0x01…01) & ~v & 0x80…80 is not zero; v: w xor '\n', '(' or ')'.
            (local.set $x (i64.xor (local.get $w) (i64.const 0x0a0a0a0a0a0a0a0a)))
            (local.set $y (i64.xor (local.get $w) (i64.const 0x2828282828282828)))
            (local.set $z (i64.xor (local.get $w) (i64.const 0x2929292929292929)))
            (br_if $slow (i64.ne (i64.const 0) (i64.and (i64.const 0x8080808080808080)
              (i64.or
                (i64.and (i64.sub (local.get $x) (i64.const 0x0101010101010101)) (i64.xor (local.get $x) (i64.const -1)))
                (i64.or
                  (i64.and (i64.sub (local.get $y) (i64.const 0x0101010101010101)) (i64.xor (local.get $y) (i64.const -1)))
                  (i64.and (i64.sub (local.get $z) (i64.const 0x0101010101010101)) (i64.xor (local.get $z) (i64.const -1))))))))
            (local.set $q (i32.add (local.get $q) (i32.const 8)))
            (br $words)))
        (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
        (local.set $c (i32.load8_u (local.get $q)))
        (br_if $nl (i32.eq (local.get $c) (i32.const 10)))
        (if (i32.eq (local.get $c) (i32.const 40)) (then (return (i32.const -1))))
        (if (i32.eq (local.get $c) (i32.const 41))
          (then (if (i32.ne (i32.load8_u (i32.add (local.get $q) (i32.const 1))) (i32.const 10))
            (then (return (i32.const -1))))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $args)))
    (if (i32.ne (i32.load8_u (i32.sub (local.get $q) (i32.const 1))) (i32.const 41)) (then (return (i32.const -1))))
    ;; `(...)`: inlined (isInlinedCall in frame.ts).
    (if (i32.ne
          (i32.and (i32.load (i32.add (local.get $k) (i32.const 8))) (i32.const 1))
          (i32.and
            (i32.eq (i32.sub (local.get $q) (local.get $a)) (i32.const 5))
            (i32.eq (i32.and (i32.load align=1 (local.get $a)) (i32.const 0xffffff00)) (i32.const 0x2e2e2e00))))
      (then (return (i32.const -1))))
    (if (i32.gt_u (i32.add (i32.add (local.get $q) (i32.const 1)) (i32.load (i32.add (local.get $k) (i32.const 4)))) (local.get $end))
      (then (return (i32.const -1))))
    ;; The file line: $same, inlined.
    (local.set $ln (i32.load (i32.add (local.get $k) (i32.const 4))))
    (local.set $sa (i32.add (local.get $q) (i32.const 1)))
    (local.set $sb (i32.add (local.get $t) (local.get $hn)))
    (local.set $sn (local.get $ln))
    ;; Sixteen bytes at a time (two words, one branch), then a word, then the last 0-7 bytes.
    (block $lineTail
      (loop $lineWords
        (br_if $lineTail (i32.lt_u (local.get $sn) (i32.const 16)))
        (if (i64.ne (i64.const 0) (i64.or
              (i64.xor (i64.load align=1 (local.get $sa)) (i64.load align=1 (local.get $sb)))
              (i64.xor (i64.load offset=8 align=1 (local.get $sa)) (i64.load offset=8 align=1 (local.get $sb)))))
          (then (return (i32.const -1))))
        (local.set $sa (i32.add (local.get $sa) (i32.const 16)))
        (local.set $sb (i32.add (local.get $sb) (i32.const 16)))
        (local.set $sn (i32.sub (local.get $sn) (i32.const 16)))
        (br $lineWords)))
    (if (i32.ge_u (local.get $sn) (i32.const 8))
      (then
        (if (i64.ne (i64.load align=1 (local.get $sa)) (i64.load align=1 (local.get $sb)))
          (then (return (i32.const -1))))
        (local.set $sa (i32.add (local.get $sa) (i32.const 8)))
        (local.set $sb (i32.add (local.get $sb) (i32.const 8)))
        (local.set $sn (i32.sub (local.get $sn) (i32.const 8)))))
    (if (i32.ge_u (local.get $ln) (i32.const 8))
      (then
        (if (i64.ne
              (i64.load align=1 (i32.sub (i32.add (local.get $sa) (local.get $sn)) (i32.const 8)))
              (i64.load align=1 (i32.sub (i32.add (local.get $sb) (local.get $sn)) (i32.const 8))))
          (then (return (i32.const -1)))))
      (else
        (block $lineDone
          (loop $lineBytes
            (br_if $lineDone (i32.eqz (local.get $sn)))
            (if (i32.ne (i32.load8_u (local.get $sa)) (i32.load8_u (local.get $sb)))
              (then (return (i32.const -1))))
            (local.set $sa (i32.add (local.get $sa) (i32.const 1)))
            (local.set $sb (i32.add (local.get $sb) (i32.const 1)))
            (local.set $sn (i32.sub (local.get $sn) (i32.const 1)))
            (br $lineBytes)))))
    (local.get $q))

  ;; The creator lines of record $c at $p, then a blank line: the offset after it, or -1. The
  ;; goroutine id of ` in goroutine N` (1 to 15 digits) goes to 65552.
  (func $creator (param $p i32) (param $end i32) (param $c i32) (result i32)
    (local $hn i32) (local $ln i32) (local $q i32) (local $d i32) (local $digits i32) (local $id f64)
    (local.set $hn (i32.load (local.get $c)))
    (local.set $ln (i32.load (i32.add (local.get $c) (i32.const 8))))
    (if (i32.gt_u (i32.add (local.get $p) (local.get $hn)) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.eqz (call $same (local.get $p) (i32.add (local.get $c) (i32.const 16)) (local.get $hn)))
      (then (return (i32.const -1))))
    (local.set $q (i32.add (local.get $p) (local.get $hn)))
    (if (i32.and (i32.load (i32.add (local.get $c) (i32.const 4))) (i32.const 1))
      (then
        (if (i32.gt_u (i32.add (local.get $q) (i32.const 14)) (local.get $end)) (then (return (i32.const -1))))
        (if (i32.eqz (call $same (local.get $q) (i32.const 131056) (i32.const 14))) (then (return (i32.const -1))))
        (local.set $q (i32.add (local.get $q) (i32.const 14)))
        (block $digitsEnd
          (loop $digitLoop
            (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
            (local.set $d (i32.sub (i32.load8_u (local.get $q)) (i32.const 48)))
            (br_if $digitsEnd (i32.gt_u (local.get $d) (i32.const 9)))
            (local.set $id (f64.add (f64.mul (local.get $id) (f64.const 10)) (f64.convert_i32_u (local.get $d))))
            (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
            (if (i32.gt_u (local.get $digits) (i32.const 15)) (then (return (i32.const -1))))
            (local.set $q (i32.add (local.get $q) (i32.const 1)))
            (br $digitLoop)))
        (if (i32.eqz (local.get $digits)) (then (return (i32.const -1))))
        (f64.store (i32.const 65552) (local.get $id))))
    (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u (local.get $q)) (i32.const 10)) (then (return (i32.const -1))))
    (local.set $q (i32.add (local.get $q) (i32.const 1)))
    (if (i32.gt_u (i32.add (local.get $q) (local.get $ln)) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.eqz (call $same (local.get $q) (i32.add (i32.add (local.get $c) (i32.const 16)) (local.get $hn)) (local.get $ln)))
      (then (return (i32.const -1))))
    (local.set $q (i32.add (local.get $q) (local.get $ln)))
    (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u (local.get $q)) (i32.const 10)) (then (return (i32.const -1))))
    (i32.add (local.get $q) (i32.const 1)))

;; Hash of the $n bytes at $a (the table of frame texts is keyed by their file lines).
  (func $hash (param $a i32) (param $n i32) (result i32)
    (local $h i64)
    (local.set $h (i64.extend_i32_u (local.get $n)))
    (block $tail
      (loop $words
        (br_if $tail (i32.lt_u (local.get $n) (i32.const 8)))
        (local.set $h (i64.mul (i64.xor (local.get $h) (i64.load align=1 (local.get $a))) (i64.const 0x9e3779b97f4a7c15)))
        (local.set $a (i32.add (local.get $a) (i32.const 8)))
        (local.set $n (i32.sub (local.get $n) (i32.const 8)))
        (br $words)))
    (block $done
      (loop $bytes
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $h (i64.mul (i64.xor (local.get $h) (i64.load8_u (local.get $a))) (i64.const 0x100000001b3)))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $bytes)))
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))))
    (i32.wrap_i64 (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32)))))

  ;; The offset of the first newline at or after $p before $end, or -1.
  (func $newline (param $p i32) (param $end i32) (result i32)
    (local $x i64)
    (block $slow
      (loop $words
        (br_if $slow (i32.gt_u (i32.add (local.get $p) (i32.const 8)) (local.get $end)))
        (local.set $x (i64.xor (i64.load align=1 (local.get $p)) (i64.const 0x0a0a0a0a0a0a0a0a)))
        (br_if $slow (i64.ne (i64.const 0) (i64.and (i64.const 0x8080808080808080)
          (i64.and (i64.sub (local.get $x) (i64.const 0x0101010101010101)) (i64.xor (local.get $x) (i64.const -1))))))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $words)))
    (block $none
      (loop $bytes
        (br_if $none (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10)) (then (return (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $bytes)))
    (i32.const -1))

  ;; A frame text $t (see the memory layout) goes into the table, by its file line.
  (func (export "addText") (param $t i32)
    (local $b i32)
    (local.set $b (i32.add (i32.load (i32.const 131040))
      (i32.shl (i32.and (call $hash
          (i32.add (i32.load offset=28 (local.get $t)) (i32.load (local.get $t)))
          (i32.sub (i32.load offset=4 (local.get $t)) (i32.const 1)))
        (i32.load (i32.const 131044))) (i32.const 2))))
    (i32.store offset=12 (local.get $t) (i32.load (local.get $b)))
    (i32.store (local.get $b) (local.get $t)))

  ;; The frame text of the frame at $p (its call line, then its file line), from the table: the
  ;; text whose frame matches as a node's does (`$frame`), or 0. The newline of the call line goes to 131052.
  (func $text (param $p i32) (param $end i32) (result i32)
    (local $a i32) (local $b i32) (local $t i32) (local $nl i32)
    (if (i32.eqz (i32.load (i32.const 131040))) (then (return (i32.const 0))))
    ;; Where a goroutine of a known stack ends (its `created by` or blank line), no lookup: the line
    ;; is not a frame (bytes past $end may be compared here: a wrong guess only leaves the line to the reader).
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10)) (then (return (i32.const 0))))
    (if (i64.eq (i64.load align=1 (local.get $p)) (i64.const 0x2064657461657263)) (then (return (i32.const 0))))
    (local.set $a (call $newline (local.get $p) (local.get $end)))
    (if (i32.lt_s (local.get $a) (i32.const 0)) (then (return (i32.const 0))))
    (local.set $a (i32.add (local.get $a) (i32.const 1)))
    (local.set $b (call $newline (local.get $a) (local.get $end)))
    (if (i32.lt_s (local.get $b) (i32.const 0)) (then (return (i32.const 0))))
    (local.set $t (i32.load (i32.add (i32.load (i32.const 131040))
      (i32.shl (i32.and (call $hash (local.get $a) (i32.sub (local.get $b) (local.get $a))) (i32.load (i32.const 131044))) (i32.const 2)))))
    (block $none
      (loop $chain
        (br_if $none (i32.eqz (local.get $t)))
        (local.set $nl (call $frame (local.get $p) (local.get $end) (local.get $t)))
        (if (i32.ge_s (local.get $nl) (i32.const 0))
          (then
            (i32.store (i32.const 131052) (local.get $nl))
            (return (local.get $t))))
        (local.set $t (i32.load offset=12 (local.get $t)))
        (br $chain)))
    (i32.const 0))

  ;; The creator lines of record $c at $p, then a blank line, for the walk: the offset after them, or -1 (the record's id + 1 to 65544).
  (func $creatorOf (param $p i32) (param $end i32) (param $c i32) (result i32)
    (local $q i32)
    (if (i32.eqz (local.get $c)) (then (return (i32.const -1))))
    (local.set $q (call $creator (local.get $p) (local.get $end) (local.get $c)))
    (if (i32.ge_s (local.get $q) (i32.const 0))
      (then (i32.store (i32.const 65544) (i32.add (i32.load offset=12 (local.get $c)) (i32.const 1)))))
    (local.get $q))

  ;; From node $r at $p, as many frames as follow one of the known children of each node in turn (the
  ;; first child that matches, as the reader decides), at most $max. Where no child matches, frames
  ;; whose text is in the table are taken too, at most $budget of them: the reader makes their nodes,
  ;; in a chain under the last node (their texts from 98336 on, their count to 65548). Then, if the
  ;; last node has a creator (or there is one for nodes without), its lines and the blank line after
  ;; them. Returns how many frames; the result area holds the offset after the last line taken, the
  ;; last node and which creator matched.
  (func (export "walk") (param $p i32) (param $end i32) (param $r i32) (param $max i32) (param $budget i32) (result i32)
    (local $n i32) (local $k i32) (local $nl i32) (local $out i32) (local $c i32) (local $t i32) (local $nt i32)
    (local.set $out (i32.const 65560))
    (block $stop
      (loop $frames
        (br_if $stop (i32.ge_u (local.get $n) (local.get $max)))
        (br_if $stop (i32.ge_u (local.get $p) (local.get $end)))
        ;; After a new frame text, the frames that follow are new too: only the table is asked.
        (local.set $k (if (result i32) (local.get $nt) (then (i32.const 0)) (else (i32.load (i32.add (local.get $r) (i32.const 12))))))
        (local.set $t (i32.const 0))
        (block $found
          (loop $kids
            (if (i32.eqz (local.get $k))
              (then
                ;; No child: a frame text read before, at a new place of the trie.
                (br_if $stop (i32.ge_u (local.get $nt) (local.get $budget)))
                (local.set $t (call $text (local.get $p) (local.get $end)))
                (br_if $stop (i32.eqz (local.get $t)))
                (local.set $k (local.get $t))
                (local.set $nl (i32.load (i32.const 131052)))
                (br $found)))
            (local.set $nl (call $frame (local.get $p) (local.get $end) (local.get $k)))
            (br_if $found (i32.ge_s (local.get $nl) (i32.const 0)))
            (local.set $k (i32.load (i32.add (local.get $k) (i32.const 16))))
            (br $kids)))
        (i32.store (local.get $out) (i32.sub (i32.add (local.get $p) (i32.load (local.get $k))) (i32.const 1)))
        (i32.store (i32.add (local.get $out) (i32.const 4)) (local.get $nl))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $p (i32.add (i32.add (local.get $nl) (i32.const 1)) (i32.load (i32.add (local.get $k) (i32.const 4)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (if (local.get $t)
          (then
            (i32.store (i32.add (i32.const 98336) (i32.shl (local.get $nt) (i32.const 2))) (local.get $t))
            (local.set $nt (i32.add (local.get $nt) (i32.const 1))))
          (else (local.set $r (local.get $k))))
        (br $frames)))
    (i32.store (i32.const 65548) (local.get $nt))
    (i32.store (i32.const 65544) (i32.const 0))
    (if (i32.lt_u (local.get $n) (local.get $max))
      (then
        ;; The nodes of new frame texts have no creator yet.
        (local.set $c (if (result i32) (local.get $nt) (then (i32.const 0)) (else (i32.load (i32.add (local.get $r) (i32.const 24))))))
        (local.set $nl (call $creatorOf (local.get $p) (local.get $end) (local.get $c)))
        (if (i32.and (i32.lt_s (local.get $nl) (i32.const 0)) (i32.ne (local.get $c) (i32.load (i32.const 131048))))
          (then (local.set $nl (call $creatorOf (local.get $p) (local.get $end) (i32.load (i32.const 131048))))))
        (if (i32.ge_s (local.get $nl) (i32.const 0)) (then (local.set $p (local.get $nl))))))
    (i32.store (i32.const 65536) (local.get $p))
    (i32.store (i32.const 65540) (local.get $r))
    (local.get $n)))
