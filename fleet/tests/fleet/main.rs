//! Integration tests of stampede-fleet, one module per topic, in one binary.
//! Every panel's presets and Learn steps are checked here too: the Fleet
//! panel's run lives in this crate, above the core's other panels.

mod croniter;
mod crontab;
mod expand;
mod fix;
mod fix_native;
mod import;
mod jenkins;
mod learn;
mod limits;
mod link;
mod mixed;
mod presets;
mod prometheus;
mod puppet;
mod quartz;
mod systemd;
mod temporal;
mod zoned;
