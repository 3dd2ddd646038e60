"""Reference reader of a stripefs packed dataset (docs/dataset-format.md, version 1).

Standard library only. Point it at the dataset's folder as a mount shows it (or a local copy):

    ds = PackedDataset('/mnt/stripefs/datasets/train')
    len(ds), ds.key(0), ds[0], ds.get_by_key('train/cat/0001.jpg')

Run as a script it prints one line per sample: index, key (JSON), length and sha256, and checks
each sample's crc32c (exit 1 when one fails).
"""

import hashlib
import json
import os
import struct
import sys

MAGIC = b'STRIPEDS'
FORMAT_VERSION = 1
HEADER = struct.Struct('<8sIIQIIQQIIII')
SHARD = struct.Struct('<QII')
SAMPLE = struct.Struct('<IIQQII')


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    """crc32c (Castagnoli) in pure Python: slow, for checks only."""
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


class PackedDataset:
    def __init__(self, path):
        self.path = path
        with open(os.path.join(path, 'index.sfds'), 'rb') as f:
            raw = f.read()
        if len(raw) < HEADER.size:
            raise ValueError('index shorter than its header')
        (magic, version, header_bytes, samples, shards, entry_bytes,
         key_bytes, _total, body_crc, _flags, _reserved, header_crc) = HEADER.unpack_from(raw, 0)
        if magic != MAGIC:
            raise ValueError('not a stripefs dataset index')
        if version != FORMAT_VERSION:
            raise ValueError('index format version %d; this reader reads %d' % (version, FORMAT_VERSION))
        if header_bytes != HEADER.size or entry_bytes != SAMPLE.size:
            raise ValueError('unexpected table sizes')
        if len(raw) != HEADER.size + shards * SHARD.size + samples * SAMPLE.size + key_bytes:
            raise ValueError('index size differs from its header')
        self._raw = raw
        self._samples_at = HEADER.size + shards * SHARD.size
        self._keys_at = self._samples_at + samples * SAMPLE.size
        self._count = samples
        self._files = {}
        self.header_crc, self.body_crc = header_crc, body_crc

    def __len__(self):
        return self._count

    def entry(self, i):
        """(shard, crc32c, offset, length, key offset, key length) of sample i."""
        if not 0 <= i < self._count:
            raise IndexError(i)
        return SAMPLE.unpack_from(self._raw, self._samples_at + i * SAMPLE.size)

    def key(self, i):
        _, _, _, _, key_offset, key_length = self.entry(i)
        at = self._keys_at + key_offset
        return self._raw[at:at + key_length].decode('utf-8')

    def index_of(self, key):
        wanted = key.encode('utf-8')
        low, high = 0, self._count - 1
        while low <= high:
            mid = (low + high) // 2
            _, _, _, _, key_offset, key_length = self.entry(mid)
            at = self._keys_at + key_offset
            got = self._raw[at:at + key_length]
            if got == wanted:
                return mid
            if got < wanted:
                low = mid + 1
            else:
                high = mid - 1
        return -1

    def _shard(self, n):
        f = self._files.get(n)
        if f is None:
            f = open(os.path.join(self.path, 'shard-%06d.bin' % n), 'rb')
            self._files[n] = f
        return f

    def __getitem__(self, i):
        shard, _, offset, length, _, _ = self.entry(i)
        return os.pread(self._shard(shard).fileno(), length, offset)

    def get_by_key(self, key):
        i = self.index_of(key)
        if i < 0:
            raise KeyError(key)
        return self[i]

    def check(self, i):
        return crc32c(self[i]) == self.entry(i)[1]


def main(path):
    ds = PackedDataset(path)
    bad = 0
    for i in range(len(ds)):
        data = ds[i]
        ok = ds.check(i)
        bad += 0 if ok else 1
        print('%d %s %d %s%s' % (i, json.dumps(ds.key(i)), len(data),
                                 hashlib.sha256(data).hexdigest(), '' if ok else ' BAD'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
