# Import a fleet job as <workspace_id>/<job_name> (the job name is everything
# after the first "/"). The import reads the job of every device of the
# workspace (one request per device): devices and scheduled_at come from the
# devices that have it, and the value too when they all hold the same one
# (otherwise it stays null: another fleet's job may hold another value).
# fleet_ids and triggers are not known to the service. The first apply after
# the import records the configuration, reads the configured fleets only, and
# sends the job to none of their devices that have it (a warning says so); a
# later change of value or triggers sends it again.
terraform import zdm_fleet_job.configure wks-0123456789abcdef/configure
