//! Sample fleets, one click each on the page.

use crate::choice_enum;

choice_enum! {
    /// A sample fleet, or the reader's own text.
    pub enum Sample {
        Own = ("own", "Your own"),
        MinuteZero = ("cron-minute-0", "crontab: 40 jobs at minute 0"),
        JenkinsH = ("jenkins-h", "Jenkins: 200 on H H, 30 at midnight"),
        SystemdTimer = ("systemd-50", "50 machines, one systemd timer"),
        Prometheus = ("prometheus-500", "Prometheus: 500 targets"),
        Kubernetes = ("k8s", "A cluster's Kubernetes CronJobs"),
        GithubActions = ("gha", "GitHub Actions across repositories"),
    }
}

impl Sample {
    /// The sample's text; empty for [`Sample::Own`].
    pub fn text(self) -> String {
        todo!()
    }
}
