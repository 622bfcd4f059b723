//! The formats a fleet's text can be written in: a choice of the Fleet
//! panel's URL ([`crate::panels::fleet::FleetParams`]), kept here below
//! the panels so that the fleet crate (`stampede-fleet`), whose importers
//! it names, can read it without importing a panel. The fleet crate maps
//! each format to its importer in one place (its `import` module).

use crate::choice_enum;

choice_enum! {
    /// The format a fleet's text is written in.
    pub enum FleetFormat {
        Auto = ("auto", "Detect"),
        Fleet = ("fleet", "Fleet file (SYSTEM<TAB>ID<TAB>SPEC)"),
        Crontab = ("crontab", "crontab (user or system)"),
        Jenkins = ("jenkins", "Jenkinsfiles (cron triggers)"),
        JenkinsXml = ("jenkins-xml", "Jenkins job config.xml"),
        QuartzXml = ("quartz-xml", "Quartz job XML (quartz_data.xml)"),
        SpringScheduled = ("spring", "Spring @Scheduled (Java, Kotlin)"),
        Apscheduler = ("apscheduler", "APScheduler jobs (Python)"),
        Systemd = ("systemd", "systemd .timer units"),
        Prometheus = ("prometheus", "prometheus.yml"),
        Kubernetes = ("k8s", "Kubernetes CronJob YAML"),
        GithubActions = ("gha", "GitHub Actions workflow YAML"),
        Temporal = ("temporal", "Temporal schedule JSON"),
        EventBridge = ("eventbridge", "EventBridge (CloudFormation, SAM, Terraform)"),
        Anacrontab = ("anacrontab", "anacrontab (cronie's anacron)"),
        SidekiqCron = ("sidekiq", "sidekiq-cron config/schedule.yml"),
    }
}
