// Package firmware is the firmware-update family: zdm_fota, the
// zdm_fota_status data source and the zdm_schedule_fota action. The staged
// zdm_fota_rollout (resource and action) is in package rollouts.
package firmware
