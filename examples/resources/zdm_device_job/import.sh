# Import a job as <device_id>/<job_name>. The import ID is split at the first
# "/": the job name may contain "/", the device ID may not (a device ID that
# contains "/" needs an import block with identity). triggers are not known
# to the service: a configuration that sets them schedules the job once more
# after the import.
terraform import zdm_device_job.configure dev-0123456789abcdef/configure
