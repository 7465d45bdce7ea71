variable "name" {
  type = string
}

variable "instance_type" {
  type = string
}

variable "min_size" {
  type    = number
  default = 0
}

resource "aws_eks_node_group" "this" {
  cluster_name    = "ml"
  node_group_name = var.name
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-0a1b2c3d"]
  instance_types  = [var.instance_type]
  capacity_type   = "ON_DEMAND"

  scaling_config {
    min_size     = var.min_size
    max_size     = 4
    desired_size = var.min_size
  }
}
