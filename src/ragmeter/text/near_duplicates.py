"""Groups of near-duplicate texts: character 3-gram sets with a Jaccard similarity of at least
a threshold, found in time linear in the number of texts.

Two 3-gram sets A and B (|A| <= |B|) with Jaccard >= t hold at most
k(|B|) = floor(2|B|(1-t)/(1+t)) grams that are not in both, so when the 3-grams are split by
their hash into k+1+s parts (s = SPARE_PARTS), A and B hold exactly the same 3-grams in at
least s+1 parts (pigeonhole). Only a text sharing enough parts with another is compared with
it (see ``_Join._link``); empty parts, which say little, are left out of the index unless a
text has many.
Each text is indexed under every part of the split its own size calls for, and
looks up, for every size a near text could have, the parts that size's split gives it; only
texts sharing a whole part are compared, with the exact Jaccard. Texts are taken largest set
first, so the larger of a pair is indexed when the smaller looks it up. The 3-grams and the
parts' keys are computed with numpy, a block of texts at a time.

A group is a connected component of near pairs: a text already in a group is not compared with
the group's other texts again. Work is bounded for each text: under each of its parts it looks
at no more than :data:`MAX_LOOKED_AT` texts, nearest in size first, and it stops after
:data:`MAX_COMPARED` texts found not near. Distinct questions rarely meet either bound, and
the spare parts make up for a few parts looked at only in part; copies of one template share
many parts. A text for which a near text may have gone unseen is counted in
:attr:`NearGroups.bounded`.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

SPARE_PARTS = 5
"""Parts a split has beyond the pigeonhole's k + 1."""
EMPTY_SKIPPED = 1
"""A text with at most this many empty parts in a split leaves them out of the index."""
MAX_LOOKED_AT = 8
"""Texts a text looks at under each of its parts, nearest in size first."""
MAX_COMPARED = 32
"""Texts a text is compared with and found not near before it stops looking."""
_BLOCK = 8_192  # texts whose 3-grams are in memory at once (13 bits: see _gram_hashes)
_RECENT = 4_096  # texts whose 3-gram sets are kept for comparisons
_PAD = (1 << 21) - 1  # above every code point: pads a text shorter than a 3-gram


@dataclass
class NearGroups:
    """What :func:`near_groups` found."""

    groups: list[list[int]] = field(default_factory=list)
    """Indices of near-duplicate texts, each group in index order, groups by first index."""
    similarity: dict[tuple[int, int], float] = field(default_factory=dict)
    """The similarity of each pair that joined two groups, (smaller index, larger)."""
    bounded: int = 0
    """Texts that met a bound of the work (see the module doc)."""


def grams(text: str, n: int = 3) -> set[str]:
    """The character n-grams of `text` (the text itself when it is no longer than n)."""
    if len(text) <= n:
        return {text}
    return {text[i : i + n] for i in range(len(text) - n + 1)}


def near_groups(
    texts: Sequence[str],
    families: Sequence[str | None] | None = None,
    threshold: float = 0.85,
) -> NearGroups:
    """Groups of `texts` (non-empty) linked by pairs whose 3-gram Jaccard is at least
    `threshold`. Two texts of the same family (`families[i]`, a string; None for none) are not
    linked: they may be near by design."""
    join = _Join(texts, families, threshold)
    n = len(texts)
    if n < 2:
        return join.found
    sizes = np.concatenate(
        [_gram_sizes(texts[start : start + _BLOCK]) for start in range(0, n, _BLOCK)]
    )
    join.sizes = sizes.tolist()
    order = np.argsort(-sizes, kind="stable")
    for start in range(0, n, _BLOCK):
        block = order[start : start + _BLOCK]
        ids = block.tolist()
        keys, starts, empty = _part_keys([texts[i] for i in ids], sizes[block], join)
        key_list, start_list, empty_list = keys.tolist(), starts.tolist(), empty.tolist()
        for position, i in enumerate(ids):
            part_keys = key_list[start_list[position] : start_list[position + 1]]
            join.add(i, part_keys, empty_list[position])
    return join.result()


class _Join:
    """The join of texts taken largest first (see the module doc)."""

    def __init__(
        self, texts: Sequence[str], families: Sequence[str | None] | None, threshold: float
    ) -> None:
        self.texts = texts
        self.families: Sequence[str | None] = (
            families if families is not None else [None] * len(texts)
        )
        self.threshold = threshold
        t = Fraction(repr(threshold))
        self.num, self.den = t.numerator, t.denominator
        self.found = NearGroups()
        self.sizes: list[int] = []
        self.empty = array("h", bytes(2 * len(texts)))  # empty parts of each text's own split
        self.parent = list(range(len(texts)))
        # Per number of parts, part key -> the latest slot; a slot holds a text and the slot
        # before it under the same key. An index is dropped once no text left looks in it.
        self.heads: dict[int, dict[int, int]] = {}
        self.slot_text = array("q")
        self.slot_next = array("q")
        # The 3-grams of the latest texts: those a text is compared with are near it in size,
        # so taken a short while before it.
        self.recent: dict[int, set[str]] = {}

    def grams_of(self, i: int) -> set[str]:
        found = self.recent.get(i)
        if found is None:
            found = self.recent[i] = grams(self.texts[i])
            if len(self.recent) > _RECENT:
                del self.recent[next(iter(self.recent))]
        return found

    def parts(self, size: int) -> int:
        """Parts of the split for a set of `size` 3-grams: k(size) + 1 + SPARE_PARTS."""
        return size * 2 * (self.den - self.num) // (self.den + self.num) + 1 + SPARE_PARTS

    def largest_partner(self, size: int) -> int:
        """The largest set a set of `size` 3-grams can be near: floor(size / t)."""
        return size * self.den // self.num

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def add(self, i: int, keys: list[int], empty: int) -> None:
        """Link text `i` to the texts near it taken so far, then index it. `keys` holds its
        part keys for every split from its own size's to its largest partner's; `empty`, the
        number of empty parts in its own split."""
        self.empty[i] = empty
        size = self.sizes[i]
        own, most = self.parts(size), self.parts(self.largest_partner(size))
        for stale in [count for count in self.heads if count > most]:
            del self.heads[stale]
        self.found.bounded += self._link(i, size, keys, own, most)
        index = self.heads.setdefault(own, {})
        for key in keys[:own]:
            if not key:
                continue  # an empty part that need not be looked up (see _part_keys)
            self.slot_text.append(i)
            self.slot_next.append(index.get(key, -1))
            index[key] = len(self.slot_text) - 1

    def _link(self, i: int, size: int, keys: list[int], own: int, most: int) -> bool:
        """Compare text `i` with the texts sharing enough parts with it; whether a bound was
        met.

        In a split of P parts a near text x holds the same 3-grams as `i` in at least P - H
        parts (H: the most 3-grams sets of their sizes can differ by and still be near), of
        which at most `unused` are empty parts one of them leaves out; and at most `cut` of
        those lie in index entries looked at only in part. So x is seen at least
        P - H - unused - cut times, which is at least 1 + SPARE_PARTS - EMPTY_SKIPPED - cut.
        """
        slot_text, slot_next, sizes, empty = self.slot_text, self.slot_next, self.sizes, self.empty
        num, den = self.num, self.den
        limit = size * den  # a partner's size times num must not exceed it
        family = self.families[i]
        mine: set[str] | None = None
        missed = 0
        bounded = False
        offset = 0
        for count in range(own, most + 1):
            index = self.heads.get(count)
            part_keys = keys[offset : offset + count]
            offset += count
            if index is None:
                continue
            hits: dict[int, int] = {}
            cut = 0
            for key in part_keys:
                slot = index.get(key, -1) if key else -1
                looked = 0
                while slot != -1:
                    x = slot_text[slot]
                    if sizes[x] * num > limit:
                        break  # slots run from the smallest set to the largest
                    if looked == MAX_LOOKED_AT:
                        cut += 1
                        break
                    looked += 1
                    slot = slot_next[slot]
                    hits[x] = hits.get(x, 0) + 1
            bounded = bounded or cut >= 1 + SPARE_PARTS - EMPTY_SKIPPED
            left_out = part_keys.count(0)  # this text's empty parts, when it leaves them out
            for x, seen in hits.items():
                other_size = sizes[x]
                most_apart = (size + other_size) * (den - num) // (den + num)
                unused = empty[x] if empty[x] <= EMPTY_SKIPPED else left_out
                if seen < count - most_apart - unused - cut:
                    continue
                if self.find(x) == self.find(i):
                    continue
                if family is not None and self.families[x] == family:
                    continue
                if mine is None:
                    mine = self.grams_of(i)
                shared = len(mine & self.grams_of(x))
                similarity = shared / (size + other_size - shared)
                if similarity >= self.threshold:
                    self.parent[self.find(x)] = self.find(i)
                    self.found.similarity[(min(i, x), max(i, x))] = similarity
                else:
                    missed += 1
                    if missed == MAX_COMPARED:
                        return True
        return bounded

    def result(self) -> NearGroups:
        members: dict[int, list[int]] = {}
        for i in range(len(self.texts)):
            members.setdefault(self.find(i), []).append(i)
        self.found.groups = [group for group in members.values() if len(group) > 1]
        return self.found


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a bijection of uint64 that scatters the bits."""
    x = x + _GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


def _gram_hashes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct 3-grams of each of `texts` as 64-bit hashes (of a bijection of the three
    code points, so distinct grams never collide), and the text each belongs to; by text."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    points = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    points = np.concatenate([points.astype(np.uint64), np.full(2, _PAD, dtype=np.uint64)])
    counts = np.maximum(lengths - 2, 1)
    owner = np.repeat(np.arange(len(texts), dtype=np.uint64), counts)
    first = np.cumsum(lengths) - lengths
    position = np.repeat(first - (np.cumsum(counts) - counts), counts) + np.arange(
        int(counts.sum()), dtype=np.int64
    )
    length = np.repeat(lengths, counts)
    pad = np.uint64(_PAD)
    second = np.where(length >= 2, points[position + 1], pad)
    third = np.where(length >= 3, points[position + 2], pad)
    codes = (points[position] << np.uint64(42)) | (second << np.uint64(21)) | third
    if len(texts) <= _SMALL_OWNER and int(points[:-2].max(initial=0)) < _SMALL_POINT:
        # One sort of (text, grams) packed in 64 bits: 13 bits of text, 17 of each point.
        small = (
            (owner << np.uint64(51))
            | ((codes >> np.uint64(42)) & _LOW17) << np.uint64(34)
            | ((codes >> np.uint64(21)) & _LOW17) << np.uint64(17)
            | (codes & _LOW17)
        )
        small.sort()
        distinct = np.ones(len(small), dtype=bool)
        distinct[1:] = small[1:] != small[:-1]
        small = small[distinct]
        owner = small >> np.uint64(51)
        codes = (
            _widen((small >> np.uint64(34)) & _LOW17) << np.uint64(42)
            | _widen((small >> np.uint64(17)) & _LOW17) << np.uint64(21)
            | _widen(small & _LOW17)
        )
    else:
        by_text = np.lexsort((codes, owner))
        codes, owner = codes[by_text], owner[by_text]
        distinct = np.ones(len(codes), dtype=bool)
        distinct[1:] = (codes[1:] != codes[:-1]) | (owner[1:] != owner[:-1])
        codes, owner = codes[distinct], owner[distinct]
    return _mix(codes), owner.astype(np.int64)


_SMALL_OWNER = 1 << 13
_SMALL_POINT = (1 << 17) - 1  # below it: the code points of the BMP and the SMP (emoji)
_LOW17 = np.uint64((1 << 17) - 1)


def _widen(points: np.ndarray) -> np.ndarray:
    """17-bit code points back to 21 bits: the 17-bit pad is the 21-bit one."""
    return np.where(points == _LOW17, np.uint64(_PAD), points)


def _gram_sizes(texts: Sequence[str]) -> np.ndarray:
    """The number of distinct 3-grams of each of `texts`."""
    _, owner = _gram_hashes(texts)
    return np.bincount(owner, minlength=len(texts))


def _part_keys(
    texts: Sequence[str], sizes: np.ndarray, join: _Join
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each of `texts`, one key per part of every split from its own size's to its largest
    partner's (the same 3-grams in a part, the same key; equal keys for different 3-grams only
    cost a comparison; 0 for an empty part not looked up), where each text's keys start (one
    more entry, the end), and the number of empty parts in each text's own split."""
    hashes, owner = _gram_hashes(texts)
    sizes = sizes.astype(np.int64)
    own = np.array([join.parts(size) for size in sizes.tolist()], dtype=np.int64)
    most = np.array(
        [join.parts(join.largest_partner(size)) for size in sizes.tolist()], dtype=np.int64
    )
    width = (most - own + 1) * (own + most) // 2  # own + (own + 1) + ... + most
    starts = np.concatenate([[0], np.cumsum(width)])
    keys = np.zeros(int(starts[-1]), dtype=np.uint64)
    empty_own = np.zeros(len(texts), dtype=np.int64)
    for count in range(int(own.min()), int(most.max()) + 1):
        needed = (own <= count) & (count <= most)
        if not needed.any():
            continue
        chosen = np.flatnonzero(needed)
        local = np.full(len(texts), -1, dtype=np.int64)
        local[chosen] = np.arange(len(chosen))
        in_split = needed[owner]
        gram_hashes = hashes[in_split]
        slots = local[owner[in_split]] * count + (gram_hashes % np.uint64(count)).astype(np.int64)
        xor = np.zeros(len(chosen) * count, dtype=np.uint64)
        np.bitwise_xor.at(xor, slots, gram_hashes)
        filled = np.bincount(slots, minlength=len(xor)) > 0
        # Empty parts say nothing about a text; with SPARE_PARTS more parts than the
        # pigeonhole needs, two near texts share a part that is not empty unless both have
        # more than SPARE_PARTS empty ones, and only such texts look up their empty parts.
        empties = (~filled).reshape(-1, count).sum(axis=1)
        at_own = own[chosen] == count
        empty_own[chosen[at_own]] = empties[at_own]
        skipped = ~filled & np.repeat(empties <= SPARE_PARTS, count)
        part = np.tile(np.arange(count, dtype=np.uint64), len(chosen))
        tag = _mix(np.uint64(count) << np.uint64(32) | part)
        before = (count - own[chosen]) * (own[chosen] + count - 1) // 2  # own + ... + count-1
        where = (starts[chosen] + before)[:, None] + np.arange(count)
        mixed = _mix(xor ^ tag) | np.uint64(1)  # never 0: 0 marks a part not looked up
        mixed[skipped] = 0
        keys[where.ravel()] = mixed
    return keys, starts, empty_own
