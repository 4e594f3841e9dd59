//! libstdc++'s heap algorithms, `std::priority_queue` and `std::sort`, step for step, for the
//! TensorFlow kernels whose results depend on them: `TopKV2` (`gtl::TopN`'s heap order with
//! `sorted=False`, NaN placement), the CTC beam search's `TopN` (which of two equal beams
//! survives) and `CombinedNonMaxSuppression` (which compares scores only, so ties come out
//! wherever libstdc++ leaves them). Any correct heap or sort would give other orders for ties.
//!
//! `less` is the C++ comparator. The "unguarded" loops of libstdc++ rely on sentinels that a
//! comparator which is not a strict weak order (NaN scores) need not provide, where C++ would
//! read out of bounds; here they stop at the slice's ends instead.

/// `std::__push_heap`: moves `value` up from `hole` towards `top`.
fn sift_up<T: Copy>(
    h: &mut [T],
    mut hole: usize,
    top: usize,
    value: T,
    less: &impl Fn(T, T) -> bool,
) {
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(h[parent], value) {
            break;
        }
        h[hole] = h[parent];
        hole = parent;
    }
    h[hole] = value;
}

/// `std::__adjust_heap` on `h[..len]`: sinks the hole at `hole` to a leaf, then places `value`.
fn adjust_heap<T: Copy>(
    h: &mut [T],
    mut hole: usize,
    len: usize,
    value: T,
    less: &impl Fn(T, T) -> bool,
) {
    let top = hole;
    let mut child = hole;
    while child < len.saturating_sub(1) / 2 {
        child = 2 * (child + 1);
        if less(h[child], h[child - 1]) {
            child -= 1;
        }
        h[hole] = h[child];
        hole = child;
    }
    if len >= 2 && len % 2 == 0 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        h[hole] = h[child - 1];
        hole = child - 1;
    }
    sift_up(h, hole, top, value, less);
}

/// `std::make_heap`.
pub(crate) fn make_heap<T: Copy>(h: &mut [T], less: &impl Fn(T, T) -> bool) {
    let len = h.len();
    if len < 2 {
        return;
    }
    for parent in (0..=(len - 2) / 2).rev() {
        adjust_heap(h, parent, len, h[parent], less);
    }
}

/// `std::__pop_heap(first, first + len, result)`: the front goes to `result`, whose old value
/// is re-inserted into `h[..len]`.
fn pop_heap_into<T: Copy>(h: &mut [T], len: usize, result: usize, less: &impl Fn(T, T) -> bool) {
    let value = h[result];
    h[result] = h[0];
    adjust_heap(h, 0, len, value, less);
}

/// `std::pop_heap`: the front moves to the back, the rest stays a heap.
pub(crate) fn pop_heap<T: Copy>(h: &mut [T], less: &impl Fn(T, T) -> bool) {
    if h.len() > 1 {
        pop_heap_into(h, h.len() - 1, h.len() - 1, less);
    }
}

/// `std::push_heap`: the back joins the heap before it.
pub(crate) fn push_heap<T: Copy>(h: &mut [T], less: &impl Fn(T, T) -> bool) {
    if let Some(last) = h.len().checked_sub(1) {
        sift_up(h, last, 0, h[last], less);
    }
}

/// `std::sort_heap`: a heap into ascending order.
pub(crate) fn sort_heap<T: Copy>(h: &mut [T], less: &impl Fn(T, T) -> bool) {
    for last in (1..h.len()).rev() {
        pop_heap_into(h, last, last, less);
    }
}

/// `std::priority_queue::push`.
pub(crate) fn priority_queue_push<T: Copy>(h: &mut Vec<T>, value: T, less: &impl Fn(T, T) -> bool) {
    h.push(value);
    push_heap(h, less);
}

/// `std::priority_queue::top` then `pop`: the greatest element, or `None` when empty.
pub(crate) fn priority_queue_pop<T: Copy>(
    h: &mut Vec<T>,
    less: &impl Fn(T, T) -> bool,
) -> Option<T> {
    let top = *h.first()?;
    pop_heap(h, less);
    h.pop();
    Some(top)
}

/// `std::sort(a.begin(), a.end(), less)` as libstdc++ runs it: introsort (median-of-three
/// pivot, heap sort past the depth limit) down to runs of 16, then insertion sort. Not stable:
/// equal elements end where libstdc++ puts them.
pub(crate) fn sort<T: Copy>(a: &mut [T], less: &impl Fn(T, T) -> bool) {
    let n = a.len();
    if n < 2 {
        return;
    }
    introsort_loop(a, 2 * n.ilog2(), less);
    if n > 16 {
        insertion_sort(&mut a[..16], less);
        for i in 16..n {
            linear_insert(a, i, less);
        }
    } else {
        insertion_sort(a, less);
    }
}

fn introsort_loop<T: Copy>(a: &mut [T], mut depth: u32, less: &impl Fn(T, T) -> bool) {
    let mut last = a.len();
    while last > 16 {
        if depth == 0 {
            // std::__partial_sort(first, last, last): a heap sort.
            make_heap(&mut a[..last], less);
            sort_heap(&mut a[..last], less);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(&mut a[..last], less);
        introsort_loop(&mut a[cut..last], depth, less);
        last = cut;
    }
}

/// `std::__unguarded_partition_pivot`: the median of `a[1]`, `a[mid]`, `a[last]` moved to the
/// front, then Hoare partitioning around it; returns the cut.
fn partition_pivot<T: Copy>(a: &mut [T], less: &impl Fn(T, T) -> bool) -> usize {
    let (n, mid) = (a.len(), a.len() / 2);
    let (x, y, z) = (a[1], a[mid], a[n - 1]);
    let median = if less(x, y) {
        if less(y, z) {
            mid
        } else if less(x, z) {
            n - 1
        } else {
            1
        }
    } else if less(x, z) {
        1
    } else if less(y, z) {
        n - 1
    } else {
        mid
    };
    a.swap(0, median);
    let (mut first, mut last) = (1, n);
    loop {
        while first < n && less(a[first], a[0]) {
            first += 1;
        }
        last -= 1;
        while last > 0 && less(a[0], a[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        a.swap(first, last);
        first += 1;
    }
}

fn insertion_sort<T: Copy>(a: &mut [T], less: &impl Fn(T, T) -> bool) {
    for i in 1..a.len() {
        if less(a[i], a[0]) {
            let v = a[i];
            a.copy_within(0..i, 1);
            a[0] = v;
        } else {
            linear_insert(a, i, less);
        }
    }
}

/// `std::__unguarded_linear_insert`: moves `a[i]` left past every element it goes before.
fn linear_insert<T: Copy>(a: &mut [T], mut i: usize, less: &impl Fn(T, T) -> bool) {
    let v = a[i];
    while i > 0 && less(v, a[i - 1]) {
        a[i] = a[i - 1];
        i -= 1;
    }
    a[i] = v;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys with many ties; the index rides along to show where each element ends.
    fn keyed(n: usize) -> Vec<(u32, usize)> {
        (0..n).map(|i| (((i * 7919 + 13) % 5) as u32, i)).collect()
    }

    #[test]
    fn heap_matches_libstdcxx() {
        let less = |a: (f32, usize), b: (f32, usize)| a.0 < b.0;
        let mut h = Vec::new();
        let scores = [0.5f32, 0.9, 0.5, 0.7, 0.5, 0.5, 0.2, 0.5];
        for (i, s) in scores.iter().enumerate() {
            priority_queue_push(&mut h, (*s, i), &less);
        }
        let order: Vec<usize> = std::iter::from_fn(|| priority_queue_pop(&mut h, &less))
            .map(|c| c.1)
            .collect();
        // What std::priority_queue pops for the same pushes (g++ 12, libstdc++).
        assert_eq!(order, [1, 3, 2, 5, 4, 0, 7, 6]);
    }

    #[test]
    fn sort_matches_libstdcxx() {
        // std::sort by key descending (g++ 12, libstdc++) of keyed(n), n = 40, 12, 200.
        let mut v = keyed(40);
        sort(&mut v, &|a: (u32, usize), b: (u32, usize)| b.0 < a.0);
        let idx: Vec<usize> = v.iter().map(|x| x.1).collect();
        assert_eq!(idx, LIBSTDCXX_40);
        let mut w = keyed(12);
        sort(&mut w, &|a: (u32, usize), b: (u32, usize)| b.0 < a.0);
        let idx: Vec<usize> = w.iter().map(|x| x.1).collect();
        assert_eq!(idx, LIBSTDCXX_12);
        let mut u = keyed(200);
        sort(&mut u, &|a: (u32, usize), b: (u32, usize)| b.0 < a.0);
        let idx: Vec<usize> = u.iter().map(|x| x.1).collect();
        assert_eq!(idx, LIBSTDCXX_200);
    }

    const LIBSTDCXX_40: [usize; 40] = [
        39, 34, 4, 29, 24, 9, 19, 14, 20, 35, 30, 25, 0, 15, 10, 5, 1, 16, 36, 11, 21, 31, 26, 6,
        27, 37, 2, 32, 7, 22, 17, 12, 28, 13, 8, 23, 33, 3, 18, 38,
    ];
    const LIBSTDCXX_12: [usize; 12] = [4, 9, 0, 5, 10, 1, 6, 11, 2, 7, 3, 8];
    const LIBSTDCXX_200: [usize; 200] = [
        104, 149, 144, 29, 139, 34, 129, 124, 39, 119, 114, 44, 109, 134, 49, 99, 94, 54, 89, 84,
        59, 79, 74, 64, 69, 174, 199, 194, 4, 189, 184, 9, 179, 14, 169, 164, 24, 154, 159, 19,
        180, 70, 195, 145, 75, 80, 190, 155, 85, 185, 90, 140, 95, 0, 135, 175, 105, 150, 110, 100,
        170, 115, 160, 120, 165, 130, 125, 5, 55, 35, 10, 30, 40, 60, 25, 50, 20, 45, 65, 15, 186,
        116, 11, 111, 41, 121, 46, 126, 181, 36, 106, 131, 136, 1, 31, 141, 146, 176, 26, 151, 156,
        21, 161, 171, 166, 16, 66, 86, 56, 91, 81, 61, 196, 191, 76, 96, 71, 101, 51, 6, 72, 107,
        2, 142, 177, 27, 82, 147, 167, 17, 77, 152, 12, 22, 172, 162, 157, 62, 197, 37, 42, 7, 117,
        112, 102, 97, 52, 122, 57, 182, 127, 192, 92, 132, 67, 187, 32, 47, 87, 137, 13, 188, 133,
        198, 8, 173, 183, 193, 178, 3, 43, 68, 73, 63, 78, 83, 58, 88, 93, 53, 98, 103, 48, 108,
        113, 168, 118, 123, 38, 128, 33, 138, 143, 28, 148, 153, 23, 158, 163, 18,
    ];
}
