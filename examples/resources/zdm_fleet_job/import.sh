# Import a fleet job as <workspace_id>/<job_name> (the job name is everything
# after the first "/"). The import reads the job of every device of the
# workspace (one request per device): devices, value and scheduled_at come
# from the devices that have it. fleet_ids and triggers are not known to the
# service: a configuration that sets them schedules the job once more.
terraform import zdm_fleet_job.configure wks-0123456789abcdef/configure
