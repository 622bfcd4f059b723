from apscheduler.schedulers.blocking import BlockingScheduler

scheduler = BlockingScheduler()
scheduler.add_job(sync, 'cron', minute=0, id='py-sync')
