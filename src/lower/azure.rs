//! Azure: Linux and Windows VMs (and the legacy `azurerm_virtual_machine`), and the
//! DevTest Labs auto-shutdown schedule that stops them.

use super::terraform::{Module, references};
use super::{attach_stop, instance_machine};
use crate::model::{Capacity, CapacityKind, Inventory, Market, Provider, StopKind, Value};

const VMS: [(&str, &str); 3] = [
    ("azurerm_linux_virtual_machine", "size"),
    ("azurerm_windows_virtual_machine", "size"),
    ("azurerm_virtual_machine", "vm_size"),
];

pub fn lower(module: &Module<'_>, out: &mut Inventory) {
    let first = out.capacity.len();
    for (rtype, size_key) in VMS {
        for r in module.resources_of(rtype) {
            let b = &r.block;
            let market = b.str("priority").map(|p| {
                if p.eq_ignore_ascii_case("spot") {
                    Market::Spot
                } else {
                    Market::OnDemand
                }
            });
            out.capacity.push(Capacity {
                subject: r.subject(),
                provider: Provider::Azure,
                kind: CapacityKind::Instance,
                header: r.header(),
                machine: b
                    .str(size_key)
                    .map(|s| instance_machine(Provider::Azure, &s)),
                market,
                stop: Vec::new(),
            });
        }
    }
    for schedule in module.resources_of("azurerm_dev_test_global_vm_shutdown_schedule") {
        let kind = match schedule.block.bool("enabled") {
            Value::Known(false, _) => continue,
            Value::Unknown(_) => StopKind::Unresolved,
            Value::Known(true, _) | Value::Absent => StopKind::ShutdownSchedule,
        };
        let targets: Vec<_> = schedule
            .block
            .expr("virtual_machine_id")
            .map(references)
            .unwrap_or_default()
            .into_iter()
            .filter(|t| VMS.iter().any(|(rtype, _)| *rtype == t.rtype))
            .collect();
        attach_stop(
            &mut out.capacity[first..],
            &targets,
            kind,
            &schedule.header(),
        );
    }
}
