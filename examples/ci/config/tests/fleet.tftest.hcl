# Applies the configuration's resources under names of this run only:
# nothing can be deleted through the API, and the destroy at the end only
# forgets, so every run takes new names (run.names.suffix).

run "names" {
  module {
    source = "./tests/names"
  }
}

run "fleet_with_devices" {
  module {
    source = "./tests/fleet"
  }

  variables {
    name    = "ci-${run.names.suffix}"
    serials = ["${run.names.suffix}-a", "${run.names.suffix}-b"]
  }

  assert {
    condition     = length(output.device_ids) == 2
    error_message = "Expected two devices, got ${length(output.device_ids)}."
  }
}
