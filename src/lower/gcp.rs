//! GCP: `google_compute_instance`, with GPUs from accelerator-optimized machine types or
//! `guest_accelerator`, and its stop mechanisms (`scheduling.max_run_duration`,
//! `scheduling.termination_time`, an instance-schedule resource policy).

use super::instance_machine;
use super::terraform::{Block, Module, Resource, references};
use crate::catalog::{Interconnect, catalog};
use crate::model::{
    Capacity, CapacityKind, GpuSet, Inventory, Machine, Market, Provider, Span, Stop, StopKind,
    Value,
};

pub fn lower(module: &Module<'_>, out: &mut Inventory) {
    for r in module.resources_of("google_compute_instance") {
        let b = &r.block;
        let scheduling = b.block("scheduling");
        let mut stop = Vec::new();
        match &scheduling {
            Value::Known(s, _) => {
                // A run cap or a fixed end time both stop the VM.
                let caps = [
                    s.block("max_run_duration").span().cloned(),
                    s.span_of("termination_time"),
                ];
                stop.extend(caps.into_iter().flatten().map(|span| Stop {
                    kind: StopKind::MaxRunDuration,
                    span,
                }));
            }
            Value::Unknown(span) => stop.push(Stop {
                kind: StopKind::Unresolved,
                span: span.clone(),
            }),
            Value::Absent => {}
        }
        stop.extend(schedule_policies(module, &r));
        out.capacity.push(Capacity {
            subject: r.subject(),
            provider: Provider::Gcp,
            kind: CapacityKind::Instance,
            header: r.header(),
            machine: machine(b),
            market: market(&scheduling),
            stop,
        });
    }
}

/// The GPUs of a GCP VM: attached to the machine type (A2, A3, A4, G2, G4), or added with
/// `guest_accelerator` (N1).
fn machine(b: &Block<'_>) -> Value<Machine> {
    let (name, span) = match b.str("machine_type") {
        Value::Known(t, s) => (last_segment(&t).to_string(), s),
        Value::Unknown(s) => return Value::Unknown(s),
        Value::Absent => return Value::Absent,
    };
    let attached = instance_machine(Provider::Gcp, &name);
    if attached.gpus.is_some() {
        return Value::Known(attached, span);
    }
    let accelerators = match b.blocks("guest_accelerator") {
        Value::Known(a, _) => a,
        Value::Unknown(s) => return Value::Unknown(s),
        Value::Absent => return Value::Known(attached, span),
    };
    let mut gpus = None;
    for acc in accelerators {
        let (Value::Known(ty, ty_span), count) = (acc.str("type"), acc.u64("count")) else {
            return Value::Unknown(acc.header);
        };
        let count = match count {
            Value::Known(c, _) => c,
            Value::Unknown(s) => return Value::Unknown(s),
            // `count` is required; without it there is nothing to judge.
            Value::Absent => return Value::Unknown(acc.header),
        };
        if count == 0 {
            continue;
        }
        let ty = last_segment(&ty);
        // N1's attachable GPUs carry their interconnect in the catalog; any other type
        // the catalog knows is read as PCIe-attached.
        let (gpu, interconnect) = match catalog().accelerator(ty) {
            Some(a) => (a.gpu, a.row.interconnect),
            None => match catalog().gpu(ty) {
                Some(g) => (g, Interconnect::Pcie),
                None => return Value::Unknown(ty_span),
            },
        };
        gpus = Some(GpuSet {
            gpu,
            count: u32::try_from(count).unwrap_or(u32::MAX),
            interconnect,
        });
    }
    Value::Known(Machine { name, gpus }, span)
}

fn market(scheduling: &Value<Block<'_>>) -> Value<Market> {
    let Value::Known(s, span) = scheduling else {
        return match scheduling {
            Value::Unknown(s) => Value::Unknown(s.clone()),
            _ => Value::Absent,
        };
    };
    match (s.str("provisioning_model"), s.bool("preemptible")) {
        (Value::Known(m, sp), _) if m == "SPOT" => Value::Known(Market::Spot, sp),
        (_, Value::Known(true, sp)) => Value::Known(Market::Spot, sp),
        (Value::Unknown(sp), _) | (_, Value::Unknown(sp)) => Value::Unknown(sp),
        _ => Value::Known(Market::OnDemand, span.clone()),
    }
}

/// Instance schedules attached through `resource_policies`.
fn schedule_policies(module: &Module<'_>, r: &Resource<'_>) -> Vec<Stop> {
    let Some(expr) = r.block.expr("resource_policies") else {
        return Vec::new();
    };
    let span = r
        .block
        .span_of("resource_policies")
        .expect("attribute exists");
    let refs: Vec<_> = references(expr)
        .into_iter()
        .filter(|x| x.rtype == "google_compute_resource_policy")
        .collect();
    if refs.is_empty() {
        // Named by a string or a variable: it may be a schedule gpulint cannot see.
        return vec![Stop {
            kind: StopKind::Unresolved,
            span,
        }];
    }
    refs.iter()
        .filter_map(|x| {
            let policy = module.resource(&x.rtype, &x.name)?;
            let kind = match policy.block.block("instance_schedule_policy") {
                Value::Known(p, _) => match p.block("vm_stop_schedule") {
                    Value::Known(..) => StopKind::InstanceSchedule,
                    Value::Unknown(_) => StopKind::Unresolved,
                    Value::Absent => return None,
                },
                Value::Unknown(_) => StopKind::Unresolved,
                Value::Absent => return None,
            };
            Some(Stop {
                kind,
                span: Span::new(r.block.file, x.span.clone()),
            })
        })
        .collect()
}

/// `projects/p/zones/z/machineTypes/a3-highgpu-8g` → `a3-highgpu-8g`.
fn last_segment(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}
