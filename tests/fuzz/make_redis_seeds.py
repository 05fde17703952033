#!/usr/bin/env python3
"""Writes the seed corpus of build/fuzz/redis_fuzz (tests/fuzz/redis_dump_fuzz.cc)
to tests/fuzz/redis_corpus/: small RedisBloom cuckoo filters as CF.SCANDUMP gives
them, built by an independent model of the server's CF.ADD / CF.DEL
(docs/FORMAT.md, "Redis cuckoo filter"), in the target's input layout under mode
bytes 0 (iterators in the input), 1 (iterators computed) and 3 (item count fixed
up too). Deterministic.

    python3 tests/fuzz/make_redis_seeds.py
"""
import os
import struct

M = 0xc6a4a7935bd1e995
MASK = (1 << 64) - 1


def murmur(b, seed=0):
    h = (seed ^ (len(b) * M)) & MASK
    n = len(b) // 8
    for w in range(n):
        k = int.from_bytes(b[w * 8:w * 8 + 8], 'little')
        k = (k * M) & MASK
        k ^= k >> 47
        k = (k * M) & MASK
        h ^= k
        h = (h * M) & MASK
    if len(b) & 7:
        for i in range((len(b) & 7) - 1, -1, -1):
            h ^= b[n * 8 + i] << (8 * i)
        h = (h * M) & MASK
    h ^= h >> 47
    h = (h * M) & MASK
    h ^= h >> 47
    return h


class CF:
    def __init__(self, capacity, b=2, maxit=20, exp=1):
        self.b, self.maxit, self.exp = b, maxit, exp
        n = 1
        while n < capacity // b:
            n *= 2
        self.n0 = n
        self.e = 1
        while self.e < exp:
            self.e *= 2
        self.subs = [bytearray(n * b)]
        self.items = self.dels = 0

    def n(self, j):
        return self.n0 * self.e ** j

    def free(self, t, i):
        for s in range(self.b):
            if t[i * self.b + s] == 0:
                return i * self.b + s
        return None

    def alt(self, i, fp, n):
        return (i ^ ((fp * 0x5bd1e995) & MASK)) % n

    def add(self, key):
        h = murmur(key)
        fp = h % 255 + 1
        for j in range(len(self.subs) - 1, -1, -1):
            n, t = self.n(j), self.subs[j]
            for i in (h % n, self.alt(h % n, fp, n)):
                p = self.free(t, i)
                if p is not None:
                    t[p] = fp
                    self.items += 1
                    return True
        j = len(self.subs) - 1
        n, t = self.n(j), self.subs[j]
        i, cur, v, path = h % n, fp, 0, []
        for _ in range(self.maxit):
            p = i * self.b + v
            cur, t[p] = t[p], cur
            path.append(p)
            i = self.alt(i, cur, n)
            q = self.free(t, i)
            if q is not None:
                t[q] = cur
                self.items += 1
                return True
            v = (v + 1) % self.b
        for p in reversed(path):
            cur, t[p] = t[p], cur
        if self.exp == 0 or len(self.subs) >= 32:
            return False
        self.subs.append(bytearray(self.n(len(self.subs)) * self.b))
        return self.add(key)

    def delete(self, key):
        h = murmur(key)
        fp = h % 255 + 1
        for j in range(len(self.subs) - 1, -1, -1):
            n, t = self.n(j), self.subs[j]
            for i in (h % n, self.alt(h % n, fp, n)):
                for s in range(self.b):
                    if t[i * self.b + s] == fp:
                        t[i * self.b + s] = 0
                        self.items -= 1
                        self.dels += 1
                        return True
        return False

    def chunks(self):
        header = struct.pack('<QQQQHHH', self.items, self.n0, self.dels, len(self.subs),
                             self.b, self.maxit, self.exp)
        out, done = [(1, header)], 0
        for t in self.subs:
            done += len(t)
            out.append((1 + done, bytes(t)))
        return out


def encode(mode, family, chunks):
    out = bytearray([mode | (family << 3)])
    for it, data in chunks:
        out += struct.pack('<I', len(data))
        if not mode & 1:
            out += struct.pack('<Q', it)
        out += data
    return bytes(out)


def main():
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'redis_corpus')
    os.makedirs(folder, exist_ok=True)
    recipes = {
        'cf-b2-e1': (CF(64), 100, 10),
        'cf-b4-e2': (CF(64, 4, 20, 2), 400, 50),
        'cf-b1-e0-full': (CF(32, 1, 5, 0), 64, 0),
        'cf-b8-e3': (CF(16, 8, 50, 3), 200, 20),
        'cf-b3-it1': (CF(30, 3, 1, 1), 90, 5),
    }
    for name, (cf, adds, dels) in recipes.items():
        for k in range(adds):
            cf.add(b'seed-%d' % k)
        for k in range(dels):
            cf.delete(b'seed-%d' % k)
        for mode in (0, 1, 3):
            with open(os.path.join(folder, 'm%d-%s' % (mode, name)), 'wb') as f:
                f.write(encode(mode, 0, cf.chunks()))


if __name__ == '__main__':
    main()
