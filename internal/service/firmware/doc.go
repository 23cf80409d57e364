// Package firmware is the firmware-update family: zdm_fota, the staged
// zdm_fota_rollout, the zdm_fota_status data source, and the
// zdm_schedule_fota and zdm_fota_rollout actions.
package firmware
