# The configuration `plan.json` was planned from (terraform show -json).
locals {
  pools = {
    h100 = { type = "p5.48xlarge", min = 2 }
    l4   = { type = "g6.xlarge", min = 0 }
  }
}

resource "aws_eks_node_group" "gpu" {
  for_each = local.pools

  cluster_name    = "ml"
  node_group_name = "gpu-${each.key}"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-0a1b2c3d"]
  instance_types  = [each.value.type]
  capacity_type   = "ON_DEMAND"

  scaling_config {
    min_size     = each.value.min
    max_size     = 4
    desired_size = each.value.min
  }
}

resource "aws_instance" "notebook" {
  count = 1

  ami           = "ami-0abcdef1234567890"
  instance_type = "g5.2xlarge"
  tags = {
    Name = "notebook"
  }
}

module "serve" {
  source = "./modules/pool"

  name          = "serve"
  instance_type = "g6e.xlarge"
  min_size      = 1
}
