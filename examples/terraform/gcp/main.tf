# An H100 VM for experiments, and an L4 VM capped at eight hours.

resource "google_compute_instance" "h100_experiments" {
  name         = "h100-experiments"
  machine_type = "a3-highgpu-8g"
  zone         = "us-central1-a"

  boot_disk {
    initialize_params {
      image = "projects/deeplearning-platform-release/global/images/family/common-cu124"
    }
  }
  network_interface {
    network = "default"
  }
  scheduling {
    on_host_maintenance = "TERMINATE"
    automatic_restart   = false
  }
}

resource "google_compute_instance" "l4_eval" {
  name         = "l4-eval"
  machine_type = "g2-standard-8"
  zone         = "us-central1-a"

  boot_disk {
    initialize_params {
      image = "projects/deeplearning-platform-release/global/images/family/common-cu124"
    }
  }
  network_interface {
    network = "default"
  }
  scheduling {
    on_host_maintenance         = "TERMINATE"
    instance_termination_action = "STOP"
    max_run_duration {
      seconds = 28800
    }
  }
}
