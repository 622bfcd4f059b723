use stampede_core::fleet::import::FleetFormat;
use stampede_core::fleet::*;
#[test]
fn t() {
    let text: String = (0..200_000)
        .map(|i| format!("0 0 * * * job{i}\n"))
        .collect();
    let t = std::time::Instant::now();
    let read = import::import(&text, FleetFormat::Auto);
    eprintln!("import {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let horizon = cron::Horizon::hours(24).unwrap();
    let fixes = fix::fix_crowded(&read.file.lines, None, 1767225600, horizon, 1).unwrap();
    eprintln!("fix_crowded {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let fixed = fix::apply(&read.file.lines, &fixes);
    eprintln!("apply {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let _ = fix::compare(&read.file.lines, &fixed, 1767225600, horizon, 1).unwrap();
    eprintln!("compare {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let _ = fix::native::rewrite(&text, FleetFormat::Auto, &fixes).unwrap();
    eprintln!("rewrite {:?}", t.elapsed());
}
