# GPU node pools must carry a `team` label, so every GPU-hour has an owner.
#
#   gpulint check --policy examples/policies/team_label.rego infra/
package gpulint.team_label

deny contains {
	"msg": sprintf("GPU pool `%s` has no `team` label: nobody owns its GPU-hours", [c.subject]),
	"location": c,
	"help": "label its nodes with the team that pays for them, e.g. `team = \"ml-platform\"`",
} if {
	some c in input.capacity
	c.kind in {"group", "node_pool"}
	has_gpus(c)
	not has_label(c, "team")
}

has_gpus(c) if {
	some m in c.machines.value
	m.gpu_count > 0
}

has_label(c, key) if {
	some label in c.labels
	label.key == key
}
