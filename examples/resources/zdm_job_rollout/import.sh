# Take over a rollout of the "set_config" job started elsewhere: the next apply
# finds the devices that already have the job with the configured value and
# sends it only to the others, wave by wave.
terraform import zdm_job_rollout.sampling wks-0123456789abcdef/set_config
