# A training box that is never stopped.
resource "aws_instance" "trainer" {
  ami           = "ami-0123456789abcdef0"
  instance_type = "p5.48xlarge"
}
