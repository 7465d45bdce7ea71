//! The resource types lowering reads as GPU capacity: a block of one of these that is left
//! out (its `count` or `for_each` cannot be evaluated) is capacity gpulint did not judge.

/// Every resource type a reader of this crate turns into capacity.
const CAPACITY_TYPES: &[&str] = &[
    "aws_instance",
    "aws_spot_instance_request",
    "aws_autoscaling_group",
    "aws_eks_node_group",
    "aws_ec2_capacity_reservation",
    "aws_sagemaker_notebook_instance",
    "google_compute_instance",
    "google_compute_instance_template",
    "google_compute_region_instance_template",
    "google_compute_instance_group_manager",
    "google_compute_region_instance_group_manager",
    "google_compute_reservation",
    "google_container_cluster",
    "google_container_node_pool",
    "azurerm_linux_virtual_machine",
    "azurerm_windows_virtual_machine",
    "azurerm_virtual_machine",
    "azurerm_linux_virtual_machine_scale_set",
    "azurerm_windows_virtual_machine_scale_set",
    "azurerm_orchestrated_virtual_machine_scale_set",
    "azurerm_kubernetes_cluster",
    "azurerm_kubernetes_cluster_node_pool",
    "azurerm_capacity_reservation",
];

/// Whether a block left out at `address` (`TYPE.NAME` or `module.NAME`) is capacity: a
/// resource of a capacity type. A module call left out is not said: most are not GPU
/// capacity (a repository's many helper modules), and what they hold is not known.
pub fn may_hold_capacity(address: &str) -> bool {
    address
        .split_once('.')
        .is_some_and(|(rtype, _)| CAPACITY_TYPES.contains(&rtype))
}
