//! A synthetic tree of GPU infrastructure, the same for the same size: Terraform roots for
//! AWS, GCP and Azure (GPU and ordinary resources, variables, outputs, tfvars, a shared
//! local module called with `for_each`) and multi-document Kubernetes manifests (GPU
//! training and serving beside ordinary services), as a platform team's repository holds.
//!
//! A unit is 20 files; a tree of N files is N / 20 units and the first N % 20 files of one
//! more. Findings come from a deliberate share of the GPU resources (pools that never
//! scale to zero, VMs with no stop, training with no checkpoint volume), so the rules
//! do real work.

use std::fmt::Write as _;
use std::path::Path;

/// xorshift64*: deterministic, with no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const UNIT: usize = 20;

/// Writes a tree of `files` files under `root`; returns its size in bytes.
pub fn generate(root: &Path, files: usize) -> std::io::Result<u64> {
    let mut bytes = 0;
    let mut write = |rel: String, text: String| -> std::io::Result<()> {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("a folder"))?;
        bytes += text.len() as u64;
        std::fs::write(path, text)
    };
    write(
        "modules/aws-gpu-pool/main.tf".into(),
        AWS_POOL_MODULE.to_string(),
    )?;
    let mut written = 1;
    let mut unit = 0;
    while written < files {
        let mut rng = Rng::new(unit as u64);
        for (rel, text) in unit_files(unit, &mut rng) {
            if written == files {
                break;
            }
            write(rel, text)?;
            written += 1;
        }
        unit += 1;
    }
    Ok(bytes)
}

fn unit_files(u: usize, rng: &mut Rng) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(UNIT);
    let aws = format!("aws/env-{u}");
    out.push((format!("{aws}/network.tf"), aws_network(u, rng)));
    out.push((format!("{aws}/gpu.tf"), aws_gpu(u, rng)));
    out.push((format!("{aws}/variables.tf"), variables(rng, "us-east-1")));
    out.push((format!("{aws}/outputs.tf"), outputs(rng)));
    out.push((format!("{aws}/terraform.tfvars"), tfvars(u, rng)));
    let gcp = format!("gcp/env-{u}");
    out.push((format!("{gcp}/network.tf"), gcp_network(u, rng)));
    out.push((format!("{gcp}/gpu.tf"), gcp_gpu(u, rng)));
    out.push((format!("{gcp}/variables.tf"), variables(rng, "us-central1")));
    out.push((format!("{gcp}/outputs.tf"), outputs(rng)));
    out.push((format!("{gcp}/terraform.tfvars"), tfvars(u, rng)));
    let azure = format!("azure/env-{u}");
    out.push((format!("{azure}/network.tf"), azure_network(u, rng)));
    out.push((format!("{azure}/gpu.tf"), azure_gpu(u, rng)));
    out.push((format!("{azure}/variables.tf"), variables(rng, "eastus")));
    out.push((format!("{azure}/outputs.tf"), outputs(rng)));
    out.push((format!("{azure}/terraform.tfvars"), tfvars(u, rng)));
    let k8s = format!("k8s/team-{u}");
    out.push((format!("{k8s}/services.yaml"), k8s_services(u, rng)));
    out.push((format!("{k8s}/config.yaml"), k8s_config(u, rng)));
    out.push((format!("{k8s}/training.yaml"), k8s_training(u, rng)));
    out.push((format!("{k8s}/serving.yaml"), k8s_serving(u, rng)));
    out.push((format!("{k8s}/nodepools.yaml"), k8s_nodepools(u, rng)));
    debug_assert_eq!(out.len(), UNIT);
    out
}

const AWS_POOL_MODULE: &str = r#"variable "cluster_name" {
  type = string
}

variable "instance_type" {
  type = string
}

variable "min_size" {
  type    = number
  default = 0
}

variable "max_size" {
  type    = number
  default = 4
}

variable "subnet_ids" {
  type    = list(string)
  default = []
}

resource "aws_eks_node_group" "this" {
  cluster_name    = var.cluster_name
  node_group_name = "${var.cluster_name}-${var.instance_type}"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-nodes"
  subnet_ids      = var.subnet_ids
  instance_types  = [var.instance_type]

  scaling_config {
    desired_size = var.min_size
    min_size     = var.min_size
    max_size     = var.max_size
  }

  labels = {
    "nvidia.com/gpu.present" = "true"
  }
}
"#;

fn aws_network(u: usize, rng: &mut Rng) -> String {
    let mut t = format!(
        "resource \"aws_vpc\" \"main\" {{\n  cidr_block           = \"10.{}.0.0/16\"\n  enable_dns_hostnames = true\n\n  tags = merge(local.tags, {{ Name = \"env-{u}\" }})\n}}\n\nlocals {{\n  tags = {{\n    team        = \"team-{u}\"\n    environment = var.environment\n  }}\n}}\n",
        u % 250
    );
    for s in 0..2 + rng.below(6) {
        let _ = write!(
            t,
            "\nresource \"aws_subnet\" \"private_{s}\" {{\n  vpc_id            = aws_vpc.main.id\n  cidr_block        = cidrsubnet(aws_vpc.main.cidr_block, 8, {s})\n  availability_zone = \"${{var.region}}{}\"\n  tags              = local.tags\n}}\n",
            ["a", "b", "c"][s as usize % 3]
        );
    }
    for g in 0..=rng.below(4) {
        let _ = write!(
            t,
            "\nresource \"aws_security_group\" \"sg_{g}\" {{\n  name   = \"env-{u}-sg-{g}\"\n  vpc_id = aws_vpc.main.id\n\n  ingress {{\n    from_port   = {port}\n    to_port     = {port}\n    protocol    = \"tcp\"\n    cidr_blocks = [\"10.0.0.0/8\"]\n  }}\n\n  egress {{\n    from_port   = 0\n    to_port     = 0\n    protocol    = \"-1\"\n    cidr_blocks = [\"0.0.0.0/0\"]\n  }}\n}}\n",
            port = 443 + g * 1000
        );
    }
    let _ = write!(
        t,
        "\nresource \"aws_s3_bucket\" \"artifacts\" {{\n  bucket = \"env-{u}-artifacts\"\n  tags   = local.tags\n}}\n\nresource \"aws_iam_role\" \"nodes\" {{\n  name = \"env-{u}-nodes\"\n  assume_role_policy = jsonencode({{\n    Version = \"2012-10-17\"\n    Statement = [{{\n      Action    = \"sts:AssumeRole\"\n      Effect    = \"Allow\"\n      Principal = {{ Service = \"ec2.amazonaws.com\" }}\n    }}]\n  }})\n}}\n\nresource \"aws_instance\" \"bastion\" {{\n  ami           = \"ami-0123456789abcdef0\"\n  instance_type = \"{}\"\n  subnet_id     = aws_subnet.private_0.id\n}}\n",
        rng.pick(&["t3.micro", "t3.small", "m6i.large"])
    );
    t
}

fn aws_gpu(u: usize, rng: &mut Rng) -> String {
    let training = rng.pick(&["p4d.24xlarge", "p5.48xlarge", "p4de.24xlarge"]);
    let serving = rng.pick(&["g5.2xlarge", "g6.xlarge", "g6e.2xlarge", "g5.12xlarge"]);
    let min = rng.below(3);
    let mut t = format!(
        "module \"gpu_pools\" {{\n  source   = \"../../modules/aws-gpu-pool\"\n  for_each = var.pools\n\n  cluster_name  = \"env-{u}\"\n  instance_type = each.value.instance_type\n  min_size      = each.value.min_size\n  max_size      = each.value.max_size\n  subnet_ids    = [aws_subnet.private_0.id]\n}}\n\nresource \"aws_eks_node_group\" \"serving\" {{\n  cluster_name    = \"env-{u}\"\n  node_group_name = \"serving\"\n  node_role_arn   = aws_iam_role.nodes.arn\n  subnet_ids      = [aws_subnet.private_0.id]\n  instance_types  = [\"{serving}\"]\n  capacity_type   = \"ON_DEMAND\"\n\n  scaling_config {{\n    desired_size = {min}\n    min_size     = {min}\n    max_size     = 8\n  }}\n}}\n"
    );
    if rng.below(4) == 0 {
        let _ = write!(
            t,
            "\n# A researcher's box.\nresource \"aws_instance\" \"trainer\" {{\n  ami           = \"ami-0123456789abcdef0\"\n  instance_type = \"{training}\"\n  subnet_id     = aws_subnet.private_0.id\n}}\n"
        );
    }
    t
}

fn gcp_network(u: usize, rng: &mut Rng) -> String {
    let mut t = format!(
        "resource \"google_compute_network\" \"vpc\" {{\n  name                    = \"env-{u}\"\n  auto_create_subnetworks = false\n}}\n"
    );
    for s in 0..=rng.below(5) {
        let _ = write!(
            t,
            "\nresource \"google_compute_subnetwork\" \"subnet_{s}\" {{\n  name          = \"env-{u}-{s}\"\n  network       = google_compute_network.vpc.id\n  region        = var.region\n  ip_cidr_range = \"10.{s}.0.0/20\"\n\n  secondary_ip_range {{\n    range_name    = \"pods\"\n    ip_cidr_range = \"10.{}.0.0/14\"\n  }}\n}}\n",
            100 + s
        );
    }
    let _ = write!(
        t,
        "\nresource \"google_container_cluster\" \"main\" {{\n  name                     = \"env-{u}\"\n  location                 = var.region\n  network                  = google_compute_network.vpc.id\n  remove_default_node_pool = true\n  initial_node_count       = 1\n\n  workload_identity_config {{\n    workload_pool = \"project-{u}.svc.id.goog\"\n  }}\n}}\n\nresource \"google_storage_bucket\" \"data\" {{\n  name     = \"env-{u}-data\"\n  location = \"US\"\n  labels   = {{ team = \"team-{u}\" }}\n}}\n"
    );
    t
}

fn gcp_gpu(u: usize, rng: &mut Rng) -> String {
    let (machine, gpu) = *[
        ("g2-standard-24", "nvidia-l4"),
        ("n1-standard-16", "nvidia-tesla-t4"),
        ("a2-highgpu-1g", "nvidia-tesla-a100"),
    ]
    .get(rng.below(3) as usize)
    .expect("three");
    let min = rng.below(2);
    let mut t = format!(
        "resource \"google_container_node_pool\" \"gpu\" {{\n  name     = \"gpu\"\n  cluster  = google_container_cluster.main.id\n  location = var.region\n\n  autoscaling {{\n    min_node_count = {min}\n    max_node_count = 6\n  }}\n\n  node_config {{\n    machine_type = \"{machine}\"\n    spot         = {spot}\n\n    guest_accelerator {{\n      type  = \"{gpu}\"\n      count = {count}\n    }}\n\n    labels = {{\n      team = \"team-{u}\"\n    }}\n  }}\n}}\n\nresource \"google_container_node_pool\" \"general\" {{\n  name     = \"general\"\n  cluster  = google_container_cluster.main.id\n  location = var.region\n\n  autoscaling {{\n    min_node_count = 1\n    max_node_count = 10\n  }}\n\n  node_config {{\n    machine_type = \"e2-standard-8\"\n  }}\n}}\n",
        spot = rng.below(2) == 0,
        count = if machine.starts_with("g2") { 2 } else { 1 },
    );
    if rng.below(4) == 0 {
        let _ = write!(
            t,
            "\nresource \"google_compute_instance\" \"notebook\" {{\n  name         = \"notebook-{u}\"\n  machine_type = \"g2-standard-8\"\n  zone         = \"${{var.region}}-a\"\n\n  boot_disk {{\n    initialize_params {{\n      image = \"deeplearning-platform-release/common-cu121\"\n    }}\n  }}\n\n  network_interface {{\n    network = google_compute_network.vpc.id\n  }}\n\n  scheduling {{\n    on_host_maintenance = \"TERMINATE\"\n  }}\n}}\n"
        );
    }
    t
}

fn azure_network(u: usize, rng: &mut Rng) -> String {
    let mut t = format!(
        "resource \"azurerm_resource_group\" \"main\" {{\n  name     = \"env-{u}\"\n  location = var.region\n}}\n\nresource \"azurerm_virtual_network\" \"main\" {{\n  name                = \"env-{u}\"\n  address_space       = [\"10.0.0.0/16\"]\n  location            = azurerm_resource_group.main.location\n  resource_group_name = azurerm_resource_group.main.name\n}}\n"
    );
    for s in 0..=rng.below(4) {
        let _ = write!(
            t,
            "\nresource \"azurerm_subnet\" \"subnet_{s}\" {{\n  name                 = \"subnet-{s}\"\n  resource_group_name  = azurerm_resource_group.main.name\n  virtual_network_name = azurerm_virtual_network.main.name\n  address_prefixes     = [\"10.0.{s}.0/24\"]\n}}\n"
        );
    }
    let _ = write!(
        t,
        "\nresource \"azurerm_kubernetes_cluster\" \"main\" {{\n  name                = \"env-{u}\"\n  location            = azurerm_resource_group.main.location\n  resource_group_name = azurerm_resource_group.main.name\n  dns_prefix          = \"env{u}\"\n\n  default_node_pool {{\n    name       = \"system\"\n    vm_size    = \"Standard_D4s_v5\"\n    node_count = 2\n  }}\n\n  identity {{\n    type = \"SystemAssigned\"\n  }}\n}}\n"
    );
    t
}

fn azure_gpu(u: usize, rng: &mut Rng) -> String {
    let size = rng.pick(&[
        "Standard_NC24ads_A100_v4",
        "Standard_NC4as_T4_v3",
        "Standard_ND96isr_H100_v5",
    ]);
    let min = rng.below(2);
    format!(
        "resource \"azurerm_kubernetes_cluster_node_pool\" \"gpu\" {{\n  name                  = \"gpu{u}\"\n  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id\n  vm_size               = \"{size}\"\n  auto_scaling_enabled  = true\n  min_count             = {min}\n  max_count             = 4\n  node_taints           = [\"nvidia.com/gpu=present:NoSchedule\"]\n\n  node_labels = {{\n    team = \"team-{u}\"\n  }}\n}}\n"
    )
}

fn variables(rng: &mut Rng, region: &str) -> String {
    let mut t = format!(
        "variable \"region\" {{\n  type    = string\n  default = \"{region}\"\n}}\n\nvariable \"environment\" {{\n  type        = string\n  description = \"The environment name, used in tags.\"\n  default     = \"dev\"\n}}\n\nvariable \"pools\" {{\n  type = map(object({{\n    instance_type = string\n    min_size      = optional(number, 0)\n    max_size      = optional(number, 4)\n  }}))\n  default = {{}}\n}}\n"
    );
    for v in 0..rng.below(6) {
        let _ = write!(
            t,
            "\nvariable \"setting_{v}\" {{\n  type        = string\n  description = \"An ordinary setting of the environment.\"\n  default     = \"value-{v}\"\n}}\n"
        );
    }
    t
}

fn outputs(rng: &mut Rng) -> String {
    let mut t = String::new();
    for o in 0..=rng.below(4) {
        let _ = write!(
            t,
            "output \"value_{o}\" {{\n  description = \"An output of the environment.\"\n  value       = var.region\n}}\n\n"
        );
    }
    t
}

fn tfvars(u: usize, rng: &mut Rng) -> String {
    let mut t = format!("environment = \"env-{u}\"\n\npools = {{\n");
    for (name, itype) in [("train", "p4d.24xlarge"), ("infer", "g5.xlarge")] {
        let min = rng.below(3);
        let _ = writeln!(
            t,
            "  {name} = {{\n    instance_type = \"{itype}\"\n    min_size      = {min}\n  }}"
        );
    }
    t.push_str("}\n");
    t
}

fn k8s_services(u: usize, rng: &mut Rng) -> String {
    let mut t = String::new();
    for s in 0..2 + rng.below(4) {
        let replicas = 1 + rng.below(4);
        let _ = write!(
            t,
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api-{s}\n  namespace: team-{u}\n  labels:\n    app: api-{s}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: api-{s}\n  template:\n    metadata:\n      labels:\n        app: api-{s}\n    spec:\n      containers:\n        - name: api\n          image: registry.example.com/team-{u}/api:1.{s}.0\n          ports:\n            - containerPort: 8080\n          env:\n            - name: LOG_LEVEL\n              value: info\n          resources:\n            requests:\n              cpu: 500m\n              memory: 512Mi\n            limits:\n              memory: 1Gi\n          readinessProbe:\n            httpGet:\n              path: /healthz\n              port: 8080\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: api-{s}\n  namespace: team-{u}\nspec:\n  selector:\n    app: api-{s}\n  ports:\n    - port: 80\n      targetPort: 8080\n"
        );
    }
    t
}

fn k8s_config(u: usize, rng: &mut Rng) -> String {
    let mut t = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team-{u}\ndata:\n"
    );
    for k in 0..4 + rng.below(20) {
        let _ = writeln!(t, "  key-{k}: \"value {k} of team {u}\"");
    }
    let _ = write!(
        t,
        "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: team-{u}\nspec:\n  rules:\n    - host: team-{u}.example.com\n      http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend:\n              service:\n                name: api-0\n                port:\n                  number: 80\n"
    );
    t
}

fn k8s_training(u: usize, rng: &mut Rng) -> String {
    let gpus = rng.pick(&["1", "4", "8"]);
    let workers = 1 + rng.below(4);
    let checkpoint = rng.below(2) == 0;
    let (mount, volume) = if checkpoint {
        (
            "\n            volumeMounts:\n              - name: checkpoints\n                mountPath: /checkpoints\n              - name: dshm\n                mountPath: /dev/shm",
            format!(
                "\n        volumes:\n          - name: checkpoints\n            persistentVolumeClaim:\n              claimName: ckpt-{u}\n          - name: dshm\n            emptyDir:\n              medium: Memory"
            ),
        )
    } else {
        (
            "\n            volumeMounts:\n              - name: dshm\n                mountPath: /dev/shm",
            "\n        volumes:\n          - name: dshm\n            emptyDir:\n              medium: Memory"
                .to_string(),
        )
    };
    let replica = |kind: &str, n: u64| {
        format!(
            "    {kind}:\n      replicas: {n}\n      restartPolicy: OnFailure\n      template:\n        spec:\n          containers:\n            - name: pytorch\n              image: nvcr.io/nvidia/pytorch:24.05-py3\n              command: [\"torchrun\", \"train.py\", \"--save-dir\", \"/checkpoints\"]\n              resources:\n                limits:\n                  nvidia.com/gpu: {gpus}\n                  cpu: \"48\"\n                  memory: 400Gi{}{}\n",
            mount.replace("\n            ", "\n              "),
            volume.replace("\n        ", "\n          ")
        )
    };
    format!(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: ckpt-{u}\n  namespace: team-{u}\nspec:\n  accessModes: [ReadWriteMany]\n  resources:\n    requests:\n      storage: 2Ti\n---\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: finetune-{u}\n  namespace: team-{u}\nspec:\n  pytorchReplicaSpecs:\n{}{}",
        replica("Master", 1),
        replica("Worker", workers)
    )
}

fn k8s_serving(u: usize, rng: &mut Rng) -> String {
    let (model, tp) = *[
        ("meta-llama/Llama-3.1-8B-Instruct", 1),
        ("meta-llama/Llama-3.1-70B-Instruct", 4),
        ("mistralai/Mistral-7B-Instruct-v0.3", 1),
        ("Qwen/Qwen2.5-32B-Instruct", 2),
    ]
    .get(rng.below(4) as usize)
    .expect("four");
    let gpus = if rng.below(5) == 0 { tp * 2 } else { tp };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: llm-{u}\n  namespace: team-{u}\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: llm\n  template:\n    metadata:\n      labels:\n        app: llm\n    spec:\n      nodeSelector:\n        karpenter.k8s.aws/instance-family: g6e\n      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.6.3\n          args:\n            - --model\n            - {model}\n            - --tensor-parallel-size\n            - \"{tp}\"\n            - --max-model-len\n            - \"8192\"\n          resources:\n            limits:\n              nvidia.com/gpu: {gpus}\n              cpu: \"16\"\n              memory: 64Gi\n          volumeMounts:\n            - name: dshm\n              mountPath: /dev/shm\n      volumes:\n        - name: dshm\n          emptyDir:\n            medium: Memory\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: llm-{u}\n  namespace: team-{u}\nspec:\n  selector:\n    app: llm\n  ports:\n    - port: 8000\n"
    )
}

fn k8s_nodepools(u: usize, rng: &mut Rng) -> String {
    let capacity = rng.pick(&["\"spot\", \"on-demand\"", "\"on-demand\"", "\"spot\""]);
    format!(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu-{u}\nspec:\n  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [\"g6e\", \"g5\"]\n        - key: karpenter.sh/capacity-type\n          operator: In\n          values: [{capacity}]\n      taints:\n        - key: nvidia.com/gpu\n          effect: NoSchedule\n  limits:\n    nvidia.com/gpu: 64\n  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 5m\n"
    )
}

/// Writes a tree of `files` CRD-heavy manifest files under `root`, as an operator's
/// repository holds them (KServe's and KubeRay's CRDs are most of their bytes): each file
/// is a `CustomResourceDefinition` with a deep OpenAPI schema of about 120 KB, and every
/// tenth file is instead a GPU Deployment, so that the rules have something to find.
/// Returns the tree's size in bytes.
pub fn generate_crds(root: &Path, files: usize) -> std::io::Result<u64> {
    let mut bytes = 0;
    for i in 0..files {
        let mut rng = Rng::new(i as u64);
        let text = if i % 10 == 9 {
            k8s_serving(i, &mut rng)
        } else {
            crd(i, &mut rng)
        };
        let path = root.join(format!("config/crd-{:03}/crd-{i}.yaml", i / 100));
        std::fs::create_dir_all(path.parent().expect("a folder"))?;
        bytes += text.len() as u64;
        std::fs::write(path, text)?;
    }
    Ok(bytes)
}

/// A CRD whose schema nests objects five deep with a dozen properties at each level, as
/// generated CRDs (a pod template inside a spec) do.
fn crd(i: usize, rng: &mut Rng) -> String {
    fn props(depth: usize, indent: usize, rng: &mut Rng, out: &mut String) {
        use std::fmt::Write as _;
        let pad = " ".repeat(indent);
        let fields = if depth == 0 {
            12
        } else {
            4 + rng.below(3) as usize
        };
        for p in 0..fields {
            let _ = writeln!(out, "{pad}field{p}:");
            if depth < 4 && p < 3 {
                let _ = writeln!(
                    out,
                    "{pad}  description: Field {p} of level {depth}, as the API reference \
                     describes it.\n{pad}  type: object\n{pad}  properties:"
                );
                props(depth + 1, indent + 4, rng, out);
            } else {
                let ty = ["string", "integer", "boolean"][rng.below(3) as usize];
                let _ = writeln!(
                    out,
                    "{pad}  description: A {ty} the controller reads.\n{pad}  type: {ty}"
                );
            }
        }
    }
    let mut schema = String::new();
    props(0, 14, rng, &mut schema);
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets{i}.example.com
spec:
  group: example.com
  names:
    kind: Widget{i}
    plural: widgets{i}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
{schema}"
    )
}
