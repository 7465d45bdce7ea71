cluster_name           = "ml-prod"
training_instance_type = "p5.48xlarge"
serving_instance_types = ["g6e.xlarge", "g6e.2xlarge"]
serving_capacity_type  = "SPOT"
serving_min            = 2
zones                  = ["us-east-1a", "us-east-1b"]
