variable "cluster_name" {
  type = string
}

variable "training_instance_type" {
  type    = string
  default = "m7i.large"
}

variable "serving_instance_types" {
  type    = list(string)
  default = ["m7i.large"]
}

variable "serving_capacity_type" {
  type    = string
  default = "ON_DEMAND"
}

variable "serving_min" {
  type    = number
  default = 0
}

variable "zones" {
  type = list(string)
}
