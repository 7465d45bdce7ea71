resource "aws_subnet" "a" {
  vpc_id            = "vpc-0abc"
  cidr_block        = "10.0.1.0/24"
  availability_zone = var.zones[0]
}

resource "aws_subnet" "b" {
  vpc_id            = "vpc-0abc"
  cidr_block        = "10.0.2.0/24"
  availability_zone = var.zones[1]
}
