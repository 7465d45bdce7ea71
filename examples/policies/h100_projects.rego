# H100 and H200 pools only for the projects allowed to use them, as the pool's `project`
# node label names them: the scarcest GPUs go where the budget is.
package gpulint.h100_projects

allowed := {"research", "foundation-models"}

hopper := {"h100", "h100-pcie", "h100-nvl", "h200", "h200-nvl"}

deny contains {
	"msg": sprintf("`%s` runs %s %s: H100-class GPUs are for %s", [c.subject, m.name, whose(c), concat(", ", sort(allowed))]),
	"location": c.machines,
	"subject": c.subject,
	"help": "label the pool with an allowed project, or use an L4, L40S or A100 type",
} if {
	some c in input.capacity
	c.kind in {"group", "node_pool"}
	some m in c.machines.value
	m.gpu in hopper
	not project(c) in allowed
}

project(c) := label.value if {
	some label in c.labels
	label.key == "project"
} else := "none"

whose(c) := sprintf("for project `%s`", [project(c)]) if project(c) != "none"
else := "with no `project` label"
