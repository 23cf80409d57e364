variable "name" {
  description = "Name of the fleet. A fleet cannot be deleted, so a name is taken for good in its workspace: the provider refuses a plan that would create a second fleet of the same name."
  type        = string

  validation {
    condition     = trimspace(var.name) != ""
    error_message = "name must not be blank."
  }
}

variable "description" {
  description = "Description of the fleet."
  type        = string
  default     = ""
}

variable "devices" {
  description = "The devices of the fleet: a stable key (such as a serial number) => the device's name."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for n in values(var.devices) : trimspace(n) != ""])
    error_message = "devices: every device name must not be blank."
  }
}
