locals {
  zero     = 5 % 0
  overflow = -9223372036854775808 % -1
  wrapped  = 9223372036854775807 * 2
}

resource "aws_eks_node_group" "gpu" {
  instance_types = ["p5.48xlarge"]
  scaling_config {
    min_size     = local.zero
    max_size     = local.overflow
    desired_size = 0
  }
}
