#!/usr/bin/env python3
"""Scaling plot as a PNG with nothing but the standard library (zlib + struct),
for machines without python3-matplotlib: seconds and parallel efficiency
against ranks, one line per kind (results.tsv) plus key shards
(key_shards.tsv). Usage: png_plot.py OUT_DIR  ->  OUT_DIR/scaling.png"""
import csv
import os
import struct
import sys
import zlib

# 5x7 glyphs, one string of 7 rows (5 bits each, high bit left) per character.
FONT = {
    "0": (14, 17, 19, 21, 25, 17, 14), "1": (4, 12, 4, 4, 4, 4, 14), "2": (14, 17, 1, 2, 4, 8, 31),
    "3": (30, 1, 1, 14, 1, 1, 30), "4": (2, 6, 10, 18, 31, 2, 2), "5": (31, 16, 30, 1, 1, 17, 14),
    "6": (6, 8, 16, 30, 17, 17, 14), "7": (31, 1, 2, 4, 8, 8, 8), "8": (14, 17, 17, 14, 17, 17, 14),
    "9": (14, 17, 17, 15, 1, 2, 12), ".": (0, 0, 0, 0, 0, 12, 12), "-": (0, 0, 0, 31, 0, 0, 0),
    " ": (0,) * 7, "_": (0, 0, 0, 0, 0, 0, 31), "(": (2, 4, 8, 8, 8, 4, 2), ")": (8, 4, 2, 2, 2, 4, 8),
    "a": (0, 0, 14, 1, 15, 17, 15), "b": (16, 16, 30, 17, 17, 17, 30), "c": (0, 0, 14, 16, 16, 17, 14),
    "d": (1, 1, 15, 17, 17, 17, 15), "e": (0, 0, 14, 17, 31, 16, 14), "f": (6, 9, 8, 28, 8, 8, 8),
    "g": (0, 15, 17, 17, 15, 1, 14), "h": (16, 16, 22, 25, 17, 17, 17), "i": (4, 0, 12, 4, 4, 4, 14),
    "j": (2, 0, 6, 2, 2, 18, 12), "k": (16, 16, 18, 20, 24, 20, 18), "l": (12, 4, 4, 4, 4, 4, 14),
    "m": (0, 0, 26, 21, 21, 17, 17), "n": (0, 0, 22, 25, 17, 17, 17), "o": (0, 0, 14, 17, 17, 17, 14),
    "p": (0, 0, 30, 17, 30, 16, 16), "q": (0, 0, 13, 19, 15, 1, 1), "r": (0, 0, 22, 25, 16, 16, 16),
    "s": (0, 0, 14, 16, 14, 1, 30), "t": (8, 8, 28, 8, 8, 9, 6), "u": (0, 0, 17, 17, 17, 19, 13),
    "v": (0, 0, 17, 17, 17, 10, 4), "w": (0, 0, 17, 17, 21, 21, 10), "x": (0, 0, 17, 10, 4, 10, 17),
    "y": (0, 0, 17, 17, 15, 1, 14), "z": (0, 0, 31, 2, 4, 8, 31),
}
COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189)]
W, H = 960, 380


class Canvas:
    def __init__(self):
        self.px = bytearray([255] * (W * H * 3))

    def dot(self, x, y, c):
        if 0 <= x < W and 0 <= y < H:
            i = (y * W + x) * 3
            self.px[i:i + 3] = bytes(c)

    def line(self, x0, y0, x1, y1, c, thick=1):
        n = max(abs(x1 - x0), abs(y1 - y0), 1)
        for k in range(n + 1):
            x, y = round(x0 + (x1 - x0) * k / n), round(y0 + (y1 - y0) * k / n)
            for dx in range(thick):
                for dy in range(thick):
                    self.dot(x + dx, y + dy, c)

    def text(self, x, y, s, c=(0, 0, 0)):
        for ch in s.lower():
            rows = FONT.get(ch, FONT[" "])
            for r, bits in enumerate(rows):
                for b in range(5):
                    if bits >> (4 - b) & 1:
                        self.dot(x + b, y + r, c)
            x += 6

    def png(self, path):
        raw = b"".join(b"\x00" + bytes(self.px[y * W * 3:(y + 1) * W * 3]) for y in range(H))
        def chunk(tag, data):
            return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)) +
                    chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def panel(cv, x0, title, series, ymax, ylabel):
    """series: [(name, [(ranks, value)])]; x axis log2 of ranks."""
    left, top, w, h = x0 + 50, 40, 380, 280
    cv.text(left, 15, title)
    cv.line(left, top + h, left + w, top + h, (0, 0, 0))
    cv.line(left, top, left, top + h, (0, 0, 0))
    ranks = sorted({p for _, pts in series for p, _ in pts}) or [1]
    import math
    lo, hi = math.log2(min(ranks)), math.log2(max(ranks))
    xs = lambda p: left + (0 if hi == lo else (math.log2(p) - lo) / (hi - lo) * (w - 20)) + 10
    ys = lambda v: top + h - v / ymax * h
    for p in ranks:
        cv.line(round(xs(p)), top + h, round(xs(p)), top + h + 4, (0, 0, 0))
        cv.text(round(xs(p)) - 3, top + h + 8, str(p))
    for k in range(5):
        v = ymax * k / 4
        cv.line(left - 4, round(ys(v)), left, round(ys(v)), (0, 0, 0))
        cv.text(left - 46, round(ys(v)) - 3, f"{v:.2f}" if ymax < 10 else f"{v:.0f}")
    cv.text(left + w // 2 - 15, top + h + 22, "ranks")
    cv.text(x0 + 2, top - 12, ylabel)
    for i, (name, pts) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        pts = sorted(pts)
        for (p0, v0), (p1, v1) in zip(pts, pts[1:]):
            cv.line(round(xs(p0)), round(ys(v0)), round(xs(p1)), round(ys(v1)), c, 2)
        for p, v in pts:
            for d in range(-2, 3):
                cv.line(round(xs(p)) - 2, round(ys(v)) + d, round(xs(p)) + 2, round(ys(v)) + d, c)
        cv.line(left + w - 110, top + 10 + 12 * i, left + w - 95, top + 10 + 12 * i, c, 2)
        cv.text(left + w - 90, top + 7 + 12 * i, name)


def main():
    out = sys.argv[1]
    series_t, series_e = [], []
    rows = list(csv.DictReader(open(os.path.join(out, "results.tsv")), delimiter="\t"))
    for kind in sorted({r["kind"] for r in rows}):
        rs = [r for r in rows if r["kind"] == kind]
        series_t.append((kind, [(int(r["ranks"]), float(r["total_s"])) for r in rs]))
        series_e.append((kind, [(int(r["ranks"]), float(r["efficiency"])) for r in rs]))
    ks = os.path.join(out, "key_shards.tsv")
    if os.path.exists(ks):
        rs = list(csv.DictReader(open(ks), delimiter="\t"))
        if rs:
            series_t.append(("key shards", [(int(r["ranks"]), float(r["total_s"])) for r in rs]))
            series_e.append(("key shards", [(int(r["ranks"]), float(r["efficiency"])) for r in rs]))
    cv = Canvas()
    tmax = max([v for _, pts in series_t for _, v in pts] + [1e-9]) * 1.1
    panel(cv, 0, "total seconds", series_t, tmax, "seconds")
    panel(cv, 480, "parallel efficiency", series_e, 1.1, "efficiency")
    cv.png(os.path.join(out, "scaling.png"))
    print("plot:", os.path.join(out, "scaling.png"))


if __name__ == "__main__":
    main()
