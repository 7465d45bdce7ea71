# A small research account: one training box, one notebook, one bastion.

variable "region" {
  type    = string
  default = "us-east-1"
}

variable "trainer_type" {
  type    = string
  default = "p4d.24xlarge"
}

# 8 × A100 and nothing stops it when the job ends.
resource "aws_instance" "trainer" {
  ami                                  = "ami-0123456789abcdef0"
  instance_type                        = var.trainer_type
  instance_initiated_shutdown_behavior = "stop"

  tags = {
    Name = "trainer"
  }
}

# The notebook stops itself after an idle hour.
resource "aws_instance" "notebook" {
  ami           = "ami-0123456789abcdef0"
  instance_type = "g5.2xlarge"
}

resource "aws_cloudwatch_metric_alarm" "notebook_idle" {
  alarm_name          = "notebook-idle"
  namespace           = "AWS/EC2"
  metric_name         = "CPUUtilization"
  dimensions          = { InstanceId = aws_instance.notebook.id }
  statistic           = "Average"
  period              = 300
  evaluation_periods  = 12
  threshold           = 5
  comparison_operator = "LessThanThreshold"
  alarm_actions       = ["arn:aws:automate:${var.region}:ec2:stop"]
}

resource "aws_instance" "bastion" {
  ami           = "ami-0123456789abcdef0"
  instance_type = "t3.micro"
}
