# Take over a rollout of fw-sensor 2.1.0 started elsewhere (by hand or with the
# zdm_fota_rollout action): the next apply finds the devices that already have
# the firmware and schedules only the others, wave by wave.
terraform import zdm_fota_rollout.sensors wks-0123456789abcdef/fw-sensor/2.1.0
