resource "aws_subnet" "a" {
  vpc_id            = "vpc-0abc"
  cidr_block        = "10.0.1.0/24"
  availability_zone = "us-east-1a"
}

resource "aws_subnet" "b" {
  vpc_id            = "vpc-0abc"
  cidr_block        = "10.0.2.0/24"
  availability_zone = "us-east-1b"
}

resource "aws_launch_template" "training" {
  name_prefix   = "ml-prod-gpu-training-"
  image_id      = "ami-0123456789abcdef0"
  instance_type = "p5.48xlarge"
}

resource "aws_autoscaling_group" "training" {
  name                = "ml-prod-gpu-training"
  min_size            = 0
  max_size            = 4
  vpc_zone_identifier = [aws_subnet.a.id, aws_subnet.b.id]
  launch_template {
    id = aws_launch_template.training.id
  }
}

resource "aws_eks_node_group" "serving" {
  cluster_name    = "ml-prod"
  node_group_name = "ml-prod-gpu-serving"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = [aws_subnet.a.id, aws_subnet.b.id]
  instance_types  = ["g6e.xlarge", "g6e.2xlarge"]
  capacity_type   = "SPOT"
  scaling_config {
    min_size     = 2
    max_size     = 8
    desired_size = 2
  }
}
