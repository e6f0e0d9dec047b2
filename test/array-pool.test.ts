import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ArrayPool } from '../src/borrow/array-pool.ts'

describe('ArrayPool', () => {
  test('an array handed back is taken again, zero-filled, as a view of the same buffer', () => {
    const pool = new ArrayPool(1 << 20)
    const a = pool.take(Float64Array, 1000)
    assert.equal(a.length, 1000)
    assert.equal(a.buffer.byteLength, 8192)
    a.fill(7)
    pool.give(a)
    assert.equal(pool.held, 8192)
    const b = pool.take(Float64Array, 600)
    assert.equal(b.buffer, a.buffer)
    assert.equal(b.length, 600)
    assert.ok(b.every((x) => x === 0))
    assert.equal(pool.held, 0)
  })

  test('a buffer of the class above serves when the class that fits has none; two classes above does not', () => {
    const pool = new ArrayPool(1 << 24)
    const big = pool.take(Int32Array, 4096) // 16 KB
    pool.give(big)
    assert.equal(pool.take(Int32Array, 2000).buffer, big.buffer) // 8 KB class: one above
    pool.give(big)
    assert.notEqual(pool.take(Int32Array, 1024).buffer, big.buffer) // 4 KB class: two above
  })

  test('types share buffers by size', () => {
    const pool = new ArrayPool(1 << 20)
    const ints = pool.take(Int32Array, 2048)
    ints.fill(-1)
    pool.give(ints)
    const bytes = pool.take(Uint8Array, 8192)
    assert.equal(bytes.buffer, ints.buffer)
    assert.ok(bytes.every((x) => x === 0))
  })

  test('a buffer handed back twice is taken once', () => {
    const pool = new ArrayPool(1 << 20)
    const a = pool.take(Int32Array, 1500)
    pool.give(a, a)
    pool.give(a.subarray(10))
    assert.equal(pool.held, 8192)
    const x = pool.take(Int32Array, 1500)
    const y = pool.take(Int32Array, 1500)
    assert.notEqual(x.buffer, y.buffer)
  })

  test('small arrays, arrays the pool did not make, any over an eighth of the budget and anything past it are left to the collector', () => {
    const pool = new ArrayPool(16384 * 8)
    const small = pool.take(Int32Array, 100)
    assert.equal(small.length, 100)
    pool.give(small, new Int32Array(3000), new Int32Array(2048), null, undefined)
    assert.equal(pool.held, 0)
    // a Node Buffer's shared slab (8 KB) is not the pool's to hand out
    const slab = Buffer.from('abc')
    pool.give(slab)
    assert.equal(pool.held, 0)
    pool.take(Uint8Array, 5000)
    assert.equal(Buffer.from('hello').toString(), 'hello')
    pool.give(new Float64Array(4096)) // 32 KB, a class size: over an eighth
    assert.equal(pool.held, 0)
    const some = Array.from({ length: 9 }, () => pool.take(Float64Array, 2048)) // 16 KB each
    pool.give(...some)
    assert.equal(pool.held, 16384 * 8)
  })

  test('a budget is a size', () => {
    assert.throws(() => new ArrayPool(Number.NaN), /budget/)
    assert.throws(() => new ArrayPool(-1), /budget/)
  })

  test('a fresh array is zeroed, its buffer the size of its class where it could come back, else its own size', () => {
    const a = new ArrayPool(1 << 20).take(Float64Array, 5000)
    assert.equal(a.buffer.byteLength, 65536)
    assert.ok(a.every((x) => x === 0))
    // over an eighth of the budget: never held, so not rounded up either
    const b = new ArrayPool(1 << 18).take(Float64Array, 5000)
    assert.equal(b.buffer.byteLength, 40000)
    assert.equal(new ArrayPool(1 << 20).take(Int32Array, 100).buffer.byteLength, 400)
  })
})
