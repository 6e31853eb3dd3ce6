//! Which of up to 128 points may lie within a distance of a place,
//! without testing them all: the loops over other characters (pushes,
//! the path check of `Move`, pickups) ask it first and test only what it
//! gives, in their own order, with DDNet's own arithmetic. It only ever
//! answers a superset, so it changes which points are tested, never what
//! a test says.

use super::Vec2;

/// A set of points, bit `i` for point `i`, iterated in increasing order.
pub type Bits = u128;

/// The most points (bits in [`Bits`]).
pub const MAX_POINTS: usize = 128;

/// A cell's side in world units is `1 << CELL_SHIFT` (128): a question
/// (a reach of 37 to 50 units) looks at 1 to 4 cells, not 4 to 9.
const CELL_SHIFT: u32 = 7;
/// Cells a side of the torus the plane is folded onto: cells
/// `SIDE << CELL_SHIFT` units apart share a bucket (a superset still).
const SIDE: usize = 32;
/// The most cells a question looks at; a wider one gets every point.
const MAX_CELLS: i64 = 64;
/// Past this a place's rounding may outgrow the margin and [`cell`] no
/// longer holds: a question about such a place gets every point, and such
/// a point is near every place.
const MAX_COORD: f32 = 1.0e6;
/// The largest limit (a squared distance) a question narrows.
const MAX_LIMIT: f32 = 1.0e8;

/// `bucket_of` for a point that is not there.
const ABSENT: u16 = u16::MAX;
/// `bucket_of` for a point farther than [`MAX_COORD`] or with a NaN
/// coordinate (whose distance to anything, NaN, is never greater than a
/// limit): near everything.
const EVERYWHERE: u16 = u16::MAX - 1;

/// Up to [`MAX_POINTS`] points bucketed by the cell they are in.
pub struct Near {
    buckets: [Bits; SIDE * SIDE],
    bucket_of: [u16; MAX_POINTS],
    /// Each present point's position as last put (a point put again
    /// where it is costs a comparison).
    at: [Vec2; MAX_POINTS],
    everywhere: Bits,
    present: Bits,
}

impl Default for Near {
    fn default() -> Near {
        Near {
            buckets: [0; SIDE * SIDE],
            bucket_of: [ABSENT; MAX_POINTS],
            at: [Vec2::default(); MAX_POINTS],
            everywhere: 0,
            present: 0,
        }
    }
}

/// A [`Near`] (or [`Pairs`]) kept from one use to the next: its points
/// put again rather than made anew (16 KiB to fill). A copy starts
/// without one.
pub struct Reused<T = Near>(Option<Box<T>>);

impl<T> Default for Reused<T> {
    fn default() -> Reused<T> {
        Reused(None)
    }
}

impl<T> Clone for Reused<T> {
    fn clone(&self) -> Reused<T> {
        Reused(None)
    }
}

impl<T> std::fmt::Debug for Reused<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reused")
    }
}

impl<T: Default> Reused<T> {
    /// The buckets as last filled (empty before the first use).
    pub fn get_mut(&mut self) -> &mut T {
        self.0.get_or_insert_with(fresh)
    }

    /// The buckets as last filled, if ever.
    pub fn get(&self) -> Option<&T> {
        self.0.as_deref()
    }
}

/// New buckets, made where they are kept: made inline, their 17 KiB on
/// the stack cost every caller four stack probes a call.
#[inline(never)]
#[cold]
fn fresh<T: Default>() -> Box<T> {
    Box::default()
}

/// The squared reach [`Pairs`] keeps: the pushes' loop of `TickDeferred`
/// (a push below 35 units) tests 36 units.
pub const PAIR_LIMIT: f32 = 36.0 * 36.0;

/// A [`Near`] that also keeps, for each point, the points within
/// [`PAIR_LIMIT`] of it (`delta.dot(delta) > PAIR_LIMIT` does not hold),
/// as each point is put: the pushes ask about every character every
/// tick, but only a point that moved needs asking again (about 6 in 10
/// a tick), and as the relation is symmetric only its row and column
/// change.
pub struct Pairs {
    near: Near,
    within: [Bits; MAX_POINTS],
}

impl Default for Pairs {
    fn default() -> Pairs {
        Pairs {
            near: Near::default(),
            within: [0; MAX_POINTS],
        }
    }
}

impl Pairs {
    /// [`Near::set`], the pairs of point `i` made again if it changed.
    /// Inline the test alone: most puts change nothing.
    #[inline]
    pub fn set(&mut self, i: usize, p: Option<Vec2>) {
        if !self.near.is(i, p) {
            self.moved(i, p);
        }
    }

    #[inline(never)]
    fn moved(&mut self, i: usize, p: Option<Vec2>) {
        self.near.put(i, p);
        let bit: Bits = 1 << i;
        for j in points(self.within[i]) {
            self.within[j] &= !bit;
        }
        let mut row: Bits = 0;
        if let Some(p) = p {
            let at = &self.near.at;
            row = select(self.near.candidates(p, PAIR_LIMIT) & !bit, |j| {
                // Symmetric: `p - q` is `-(q - p)` exactly, the same
                // squares. Not far (a NaN distance is not far either).
                let delta = p - at[j];
                !(delta.dot(delta) > PAIR_LIMIT)
            });
            for j in points(row) {
                self.within[j] |= bit;
            }
        }
        self.within[i] = row;
    }

    /// The buckets themselves.
    pub fn near(&self) -> &Near {
        &self.near
    }

    /// For point `i`, there at `p` bit for bit, and a `limit` not above
    /// [`PAIR_LIMIT`]: a superset of the points `q` (not `i`) for which
    /// `delta.dot(delta) > limit` does not hold, without a question
    /// (exactly those points for [`PAIR_LIMIT`]). `None` otherwise.
    pub fn within(&self, i: usize, p: Vec2, limit: f32) -> Option<Bits> {
        let here = self.near.bucket_of.get(i).is_some_and(|&b| b != ABSENT);
        (here && limit <= PAIR_LIMIT && same_bits(self.near.at[i], p)).then(|| self.within[i])
    }
}

impl Near {
    /// Takes away every point from `n` on.
    pub fn truncate(&mut self, n: usize) {
        let past: Bits = if n < MAX_POINTS { !0 << n } else { 0 };
        for i in points(self.present & past) {
            self.set(i, None);
        }
    }

    /// Puts point `i` at `p`, or takes it away (`None`). Inline the test
    /// alone: put again where it is, bit for bit (most points, most
    /// times), there is nothing to do.
    #[inline]
    pub fn set(&mut self, i: usize, p: Option<Vec2>) {
        if !self.is(i, p) {
            self.put(i, p);
        }
    }

    /// [`Near::set`] without its test first.
    #[inline(never)]
    fn put(&mut self, i: usize, p: Option<Vec2>) {
        if let Some(p) = p {
            self.at[i] = p;
        }
        let b = match p {
            None => ABSENT,
            Some(p) if small(p) => bucket(cell(p.x), cell(p.y)) as u16,
            Some(_) => EVERYWHERE,
        };
        let was = self.bucket_of[i];
        if b == was {
            return;
        }
        let bit: Bits = 1 << i;
        match was {
            ABSENT => self.present |= bit,
            EVERYWHERE => self.everywhere &= !bit,
            was => self.buckets[usize::from(was)] &= !bit,
        }
        match b {
            ABSENT => self.present &= !bit,
            EVERYWHERE => self.everywhere |= bit,
            b => self.buckets[usize::from(b)] |= bit,
        }
        self.bucket_of[i] = b;
    }

    /// Whether point `i` is at `p` bit for bit (or absent, `None`).
    #[inline]
    fn is(&self, i: usize, p: Option<Vec2>) -> bool {
        match p {
            Some(p) => self.bucket_of[i] != ABSENT && same_bits(self.at[i], p),
            None => self.bucket_of[i] == ABSENT,
        }
    }

    /// Each point's position as last put, by index (an absent point's is
    /// stale): the loops over candidates test these packed copies first.
    pub fn at(&self) -> &[Vec2; MAX_POINTS] {
        &self.at
    }

    /// A superset of the points `q` for which `delta.dot(delta) > limit`
    /// (`delta = p - q`) does not hold.
    #[inline]
    pub fn candidates(&self, p: Vec2, limit: f32) -> Bits {
        if !((0.0..=MAX_LIMIT).contains(&limit) && small(p)) {
            return self.present;
        }
        // Past the reach by more than the rounding of the distance test
        // and of `p ± r` can make up.
        let r = limit.sqrt() * 1.001 + 1.0;
        let (x0, x1) = (cell(p.x - r), cell(p.x + r));
        let (y0, y1) = (cell(p.y - r), cell(p.y + r));
        // At most two cells a side (any reach below half a cell's, as
        // the pushes' and the pickups'): the four corners, without a loop
        // (a cell read twice changes nothing).
        if x1 - x0 <= 1 && y1 - y0 <= 1 {
            let corners = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)];
            return corners.iter().fold(self.everywhere, |found, &(cx, cy)| {
                found | self.buckets[bucket(cx, cy)]
            });
        }
        self.block(x0, x1, y0, y1)
    }

    /// [`Near::candidates`] out of line, for a caller that asks rarely on
    /// a hot path (inlined, the question's registers cost
    /// `Cores::near_ids` some 50 instructions on each of its calls).
    #[inline(never)]
    pub fn candidates_apart(&self, p: Vec2, limit: f32) -> Bits {
        self.candidates(p, limit)
    }

    /// The points of the cells from `(x0, y0)` to `(x1, y1)`, or every
    /// point for too many cells.
    #[inline(never)]
    fn block(&self, x0: i64, x1: i64, y0: i64, y1: i64) -> Bits {
        let (w, h) = (x1 - x0 + 1, y1 - y0 + 1);
        if w > MAX_CELLS || h > MAX_CELLS || w * h > MAX_CELLS {
            return self.present;
        }
        let mut found = self.everywhere;
        for cy in y0..=y1 {
            for cx in x0..=x1 {
                found |= self.buckets[bucket(cx, cy)];
            }
        }
        found
    }
}

/// The same two `f32`s, bit for bit (so a NaN or a -0 put again is
/// put anew).
pub(super) fn same_bits(a: Vec2, b: Vec2) -> bool {
    // One 64-bit comparison, not two.
    let key = |v: Vec2| u64::from(v.x.to_bits()) | u64::from(v.y.to_bits()) << 32;
    key(a) == key(b)
}

/// Both coordinates within [`MAX_COORD`] of 0 (not NaN).
fn small(p: Vec2) -> bool {
    p.x.abs() <= MAX_COORD && p.y.abs() <= MAX_COORD
}

/// The points of `bits`, in increasing order: a 64-bit half at a time
/// (a word's lowest bit is one instruction, a `u128`'s a dozen; the
/// characters' points are mostly in the low half).
pub fn points(bits: Bits) -> impl Iterator<Item = usize> {
    let half = |mut word: u64, first: usize| {
        std::iter::from_fn(move || {
            (word != 0).then(|| {
                let i = word.trailing_zeros() as usize;
                word &= word - 1;
                first + i
            })
        })
    };
    half(bits as u64, 0).chain(half((bits >> 64) as u64, 64))
}

/// The points of `bits` that `keep` holds for, each asked once, in
/// increasing order, and kept without a branch: where about half are
/// kept, by chance, a mispredicted test costs more than the bit. A
/// 64-bit half at a time, as [`points`].
#[inline]
pub fn select(bits: Bits, mut keep: impl FnMut(usize) -> bool) -> Bits {
    let mut half = |word: u64, first: usize| {
        let (mut rest, mut kept) = (word, 0u64);
        while rest != 0 {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            kept |= u64::from(keep(first + i as usize)) << i;
        }
        kept
    };
    let low = half(bits as u64, 0);
    let high = half((bits >> 64) as u64, 64);
    Bits::from(low) | Bits::from(high) << 64
}

/// The cell of a coordinate no farther than [`MAX_COORD`] from 0: adding
/// 1.5 * 2^23 rounds it to a whole number in the low bits (all such sums
/// share an exponent). Not the floor, but it keeps the order of
/// coordinates, which is all the superset needs.
fn cell(v: f32) -> i64 {
    i64::from((v + 12_582_912.0).to_bits() >> CELL_SHIFT)
}

fn bucket(cx: i64, cy: i64) -> usize {
    let wrap = |c: i64| (c as usize) & (SIDE - 1);
    wrap(cy) * SIDE + wrap(cx)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`select`] keeps the points its test holds for, asking about each
    /// point once and in order, in either half.
    #[test]
    fn select_keeps_what_its_test_holds_for() {
        fn property(bits: Bits, keep: Bits) -> bool {
            let mut asked = Vec::new();
            let kept = select(bits, |i| {
                asked.push(i);
                keep & 1 << i != 0
            });
            kept == bits & keep && asked == points(bits).collect::<Vec<_>>()
        }
        crate::testing::qc()
            .tests(5_000)
            .quickcheck(property as fn(Bits, Bits) -> bool);
        assert!(property(!0, 1 << 127 | 1 << 64 | 1 << 63 | 1));
    }

    /// The points within the limit by the distance test itself.
    fn exact(at: &[Option<Vec2>], p: Vec2, limit: f32) -> Vec<usize> {
        (0..at.len())
            .filter(|&i| {
                at[i].is_some_and(|q| {
                    let d = p - q;
                    let far = d.dot(d) > limit;
                    !far
                })
            })
            .collect()
    }

    #[test]
    fn every_point_within_the_limit_is_a_candidate_in_order() {
        let mut at = vec![None; MAX_POINTS];
        let mut near = Near::default();
        // A walk over the plane, some points on cell borders, some far,
        // one NaN, one infinite; then some moved and some removed.
        for (i, at) in at.iter_mut().enumerate().take(100) {
            let x = (i as f32 * 37.3) % 700.0 - 100.0;
            let y = (i as f32 * 91.7) % 500.0 - 64.0;
            let p = match i {
                7 => Vec2::new(f32::NAN, 3.0),
                8 => Vec2::new(f32::INFINITY, 3.0),
                9 => Vec2::new(64.0, 128.0),
                10 => Vec2::new(2048.0 + 30.0, 0.0),
                _ => Vec2::new(x, y),
            };
            *at = Some(p);
            near.set(i, Some(p));
        }
        for i in (0..100).step_by(3) {
            let p = (i % 2 == 0).then(|| Vec2::new(i as f32, -(i as f32)));
            at[i] = p;
            near.set(i, p);
        }
        for (p, limit) in [
            (Vec2::new(64.0, 128.0), 36.0 * 36.0),
            (Vec2::new(63.99, 127.99), 1.0),
            (Vec2::new(30.0, 0.0), 36.0 * 36.0),
            (Vec2::new(300.0, 200.0), 100.0 * 100.0),
            (Vec2::new(-5.0, -5.0), 0.0),
            (Vec2::new(1.0e7, 0.0), 36.0),
            (Vec2::new(0.0, 0.0), f32::INFINITY),
            (Vec2::new(0.0, 0.0), 1.0e9),
        ] {
            let found: Vec<usize> = points(near.candidates(p, limit)).collect();
            assert!(found.windows(2).all(|w| w[0] < w[1]));
            for i in exact(&at, p, limit) {
                assert!(found.contains(&i), "{i} missing near {p:?}");
            }
            assert!(found.iter().all(|&i| at[i].is_some()));
            assert!(found.contains(&7), "a NaN point is near everything");
        }
        // Narrow: from a corner of the plane, few of the 100 are asked.
        let few = points(near.candidates(Vec2::new(-100.0, -64.0), 10.0)).count();
        assert!(few < 10, "{few}");
    }

    /// `Near::candidates` (and `candidates_apart`) against the distance
    /// test itself, after random puts (moves, removals; NaN, infinite and
    /// far points among them), at random places (across cell borders,
    /// NaN and far ones) and limits (reaches from 0 to past six cells,
    /// so both the four corners and the cells' block answer; negative,
    /// NaN and infinite ones): every point within the limit and only
    /// present points.
    #[test]
    fn candidates_are_the_points_within_the_limit_and_more() {
        fn property(puts: Vec<(u8, u8, i16, i16)>, asks: Vec<(u8, i16, i16, u16)>) -> bool {
            const N: usize = 40;
            let mut near = Near::default();
            let mut at: Vec<Option<Vec2>> = vec![None; N];
            // Quarters, some seven cells a side around 0.
            let quarters = |v: i16| f32::from(v % 1800) / 4.0;
            for (i, kind, x, y) in puts {
                let i = usize::from(i) % N;
                at[i] = match kind % 16 {
                    0 => None,
                    1 => Some(Vec2::new(f32::NAN, quarters(y))),
                    2 => Some(Vec2::new(quarters(x), f32::INFINITY)),
                    3 => Some(Vec2::new(2.0e6, quarters(y))),
                    4 => at[i],
                    _ => Some(Vec2::new(quarters(x), quarters(y))),
                };
                near.set(i, at[i]);
            }
            let bits =
                |found: &mut dyn Iterator<Item = usize>| found.fold(0, |b: Bits, j| b | 1 << j);
            let present = bits(&mut (0..N).filter(|&j| at[j].is_some()));
            asks.into_iter().all(|(kind, x, y, limit)| {
                let p = match kind % 8 {
                    0 => Vec2::new(f32::NAN, quarters(y)),
                    1 => Vec2::new(quarters(x), 3.0e6),
                    _ => Vec2::new(quarters(x), quarters(y)),
                };
                let limit = match limit % 64 {
                    0 => f32::INFINITY,
                    1 => -1.0,
                    2 => f32::NAN,
                    _ => (f32::from(limit) / 200.0).powi(2),
                };
                let found = near.candidates(p, limit);
                let within = bits(&mut exact(&at, p, limit).into_iter());
                found & within == within
                    && found & !present == 0
                    && near.candidates_apart(p, limit) == found
            })
        }
        crate::testing::qc()
            .tests(2000)
            .quickcheck(property as fn(Vec<(u8, u8, i16, i16)>, Vec<(u8, i16, i16, u16)>) -> bool);
    }

    /// `Pairs::within` against the distance test itself, after each of
    /// random puts (moves, puts where a point is, removals; NaN, infinite
    /// and far points among them): at a point's own place and a limit not
    /// above `PAIR_LIMIT`, every point within the limit and only present
    /// points, not itself (exactly those within for `PAIR_LIMIT`); any
    /// other place, a larger limit or an absent point, no answer.
    #[test]
    fn kept_pairs_are_the_points_within_the_limit() {
        fn property(puts: Vec<(u8, u8, i16, i16)>, limit: u16) -> bool {
            const N: usize = 24;
            let mut pairs = Pairs::default();
            let mut at: Vec<Option<Vec2>> = vec![None; N];
            let limit = f32::from(limit % 2600) / 1.5;
            // Bits of the points of `found` but `i`.
            let bits = |found: &mut dyn Iterator<Item = usize>, i: usize| {
                found.filter(|&j| j != i).fold(0, |b: Bits, j| b | 1 << j)
            };
            puts.into_iter().all(|(i, kind, x, y)| {
                // Few points in a small square, so that they meet.
                let i = usize::from(i) % N;
                let eighths = |v: i16| f32::from(v % 1600) / 8.0;
                at[i] = match kind % 16 {
                    0 => None,
                    1 => Some(Vec2::new(f32::NAN, eighths(y))),
                    2 => Some(Vec2::new(f32::INFINITY, eighths(y))),
                    3 => Some(Vec2::new(2.0e6, eighths(y))),
                    4 => at[i],
                    _ => Some(Vec2::new(eighths(x), eighths(y))),
                };
                pairs.set(i, at[i]);
                let present = bits(&mut (0..N).filter(|&j| at[j].is_some()), N);
                (0..N).all(|i| {
                    let Some(p) = at[i] else {
                        return pairs.within(i, Vec2::new(0.0, 0.0), 0.0).is_none();
                    };
                    let exact_at = |limit| bits(&mut exact(&at, p, limit).into_iter(), i);
                    let fits = match pairs.within(i, p, limit) {
                        Some(found) => {
                            limit <= PAIR_LIMIT
                                && found & exact_at(limit) == exact_at(limit)
                                && found & !present == 0
                                && found & 1 << i == 0
                        }
                        None => limit > PAIR_LIMIT,
                    };
                    let moved = Vec2::new(p.x + 1.0, p.y);
                    fits && pairs.within(i, p, PAIR_LIMIT) == Some(exact_at(PAIR_LIMIT))
                        && (same_bits(moved, p) || pairs.within(i, moved, 0.0).is_none())
                })
            })
        }
        crate::testing::qc()
            .tests(2000)
            .quickcheck(property as fn(Vec<(u8, u8, i16, i16)>, u16) -> bool);
    }

    #[test]
    fn truncating_takes_away_the_points_from_n_on() {
        let mut near = Near::default();
        let far = Vec2::new(1.0e7, 0.0);
        for i in 0..6 {
            near.set(
                i,
                Some(if i == 4 {
                    far
                } else {
                    Vec2::new(i as f32, 0.0)
                }),
            );
        }
        near.truncate(2);
        let all = |n: &Near| points(n.candidates(Vec2::new(0.0, 0.0), 100.0)).collect::<Vec<_>>();
        assert_eq!(all(&near), [0, 1]);
        // Put again, a point is there as before.
        near.set(3, Some(Vec2::new(3.0, 0.0)));
        assert_eq!(all(&near), [0, 1, 3]);
        near.truncate(MAX_POINTS);
        assert_eq!(all(&near), [0, 1, 3]);
        near.truncate(0);
        assert_eq!(near.present, 0);
        assert_eq!(near.everywhere, 0);
    }

    #[test]
    fn points_gives_each_bit_once_in_order() {
        let bits: Bits = 1 | 1 << 5 | 1 << 64 | 1 << 127;
        assert_eq!(points(bits).collect::<Vec<_>>(), [0, 5, 64, 127]);
        assert_eq!(points(0).count(), 0);
        assert_eq!(points(1 << 100).collect::<Vec<_>>(), [100]);
        assert_eq!(points(!0).count(), MAX_POINTS);
    }
}
