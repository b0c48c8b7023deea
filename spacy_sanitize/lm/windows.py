"""Window arithmetic shared by every model that reads a document longer than it can see at
once: strided windows over a whole document (risk_seq's transformer tagger, pii_relabel's
context encoder) and the window centred on one span (the masked-LM scorer). Long inputs are
read through more windows, never truncated."""
from typing import List, Tuple
from ..errors import Errors


def strided_windows(n: int, size: int, stride: int) -> List[Tuple[int, int]]:
    """[start, end) windows of at most ``size`` items covering ``range(n)``: one starts every
    ``stride`` items until one reaches ``n`` (that one is cut at ``n``), so consecutive
    windows overlap by ``size - stride`` items and every item is in at least one.

    n (int): number of items (subwords).
    size (int): items per window (special tokens excluded).
    stride (int): items between window starts, 1 to ``size``.
    RETURNS (List[Tuple[int, int]]): the windows, by start; ``[(0, n)]`` when ``n <= size``."""
    if size <= 0 or not 0 < stride <= size:
        raise ValueError(Errors.E408.format(size=size, stride=stride))
    if n <= size:
        return [(0, n)]
    return [(start, min(start + size, n)) for start in range(0, n - size + stride, stride)]


def centred_window(n: int, first: int, last: int, size: int) -> Tuple[int, int]:
    """The [start, end) window of at most ``size`` of ``n`` items centred on items
    ``first..last`` (inclusive), shifted inwards at the edges so it stays full."""
    if n <= size:
        return 0, n
    free = size - (last - first + 1)
    start = max(0, min(first - free // 2, n - size))
    return start, start + size
