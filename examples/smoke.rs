use teeoracle::codec::Mode;
use teeoracle::teehistorian::*;
fn main() {
    for p in std::env::args().skip(1) {
        let bytes = std::fs::read(&p).unwrap();
        let (h, mut r) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
        let mut out = Vec::new();
        h.encode(&mut out);
        let mut n = 0; let mut replay = Replay::new(ReplayConfig::default());
        let mut incons = 0; let mut last_tick = 0;
        for rec in r.by_ref() {
            let rec = rec.unwrap();
            rec.encode(&mut out);
            if let Err(e) = replay.handle(rec.offset, &rec.msg) { if incons == 0 { println!("  first inconsistency: {e}"); } incons += 1; }
            n += 1; last_tick = rec.tick;
        }
        out.extend_from_slice(r.rest());
        println!("{p}: records={n} last_tick={last_tick} end={:?} exact={} incons={incons}", r.end(), out == bytes);
    }
}
