# Import a job as <device_id>/<job_name>. The job name is everything after the
# first "/", so it may itself contain "/". triggers are not known to the
# service: a configuration that sets them schedules the job once more after
# the import.
terraform import zdm_device_job.configure dev-0123456789abcdef/configure
