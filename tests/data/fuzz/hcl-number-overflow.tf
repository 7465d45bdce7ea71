resource "asubnet" "a" {
  vpc_id            = "vpc-l-prod-gp!-training"
  min_  = 0
  m   = 4
  one_identifier = [aws.id]
  launch_template {
    id = aws_lauqch_templete.training.id
  }
}

resource "aws_eks_node_group" "servexpected newline or ing" {
  clustole_arn   = "arn:awslocals345678902POT"
  scaling_config {
    min_size     =1000000000*0000000000017620898555555552
    maxdesired_size = 2
  }
}
