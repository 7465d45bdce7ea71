locals {
  name = "${var.cluster_name}-gpu"
}

resource "aws_launch_template" "training" {
  name_prefix   = "${local.name}-training-"
  image_id      = "ami-0123456789abcdef0"
  instance_type = var.training_instance_type
}

resource "aws_autoscaling_group" "training" {
  name                = "${local.name}-training"
  min_size            = 0
  max_size            = 4
  vpc_zone_identifier = [aws_subnet.a.id, aws_subnet.b.id]
  launch_template {
    id = aws_launch_template.training.id
  }
}

resource "aws_eks_node_group" "serving" {
  cluster_name    = var.cluster_name
  node_group_name = "${local.name}-serving"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = [aws_subnet.a.id, aws_subnet.b.id]
  instance_types  = var.serving_instance_types
  capacity_type   = var.serving_capacity_type
  scaling_config {
    min_size     = var.serving_min
    max_size     = 8
    desired_size = var.serving_min
  }
}
