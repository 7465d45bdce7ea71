# No model over 70B parameters on spot capacity: it takes minutes to load, so a
# reclaimed node costs more than its price difference.
package gpulint.large_models_on_demand

# Billions of parameters, as models are named: Llama 3.1 70B (70.6 billion) is not over.
limit := 70

deny contains {
	"msg": sprintf("`%s` serves a %vB-parameter model on spot capacity: over %vB belongs on on-demand or reserved GPUs", [w.subject, billions(s), limit]),
	"location": s,
	"subject": w.subject,
	"help": "select on-demand capacity for it (`karpenter.sh/capacity-type: on-demand`, or a pool that is not spot)",
} if {
	some w in input.workloads
	some p in w.pods
	s := p.serving
	billions(s) > limit
	on_spot(p)
}

# The size the model registry or the model's name gives, or the `gpulint.dev/params` hint,
# in whole billions.
billions(s) := floor(max([object.get(s, ["resolved", "params"], 0), object.get(s, ["params", "value"], 0)]) / 1e9)

on_spot(p) if p.selection.market.value == "spot"

on_spot(p) if {
	some l in p.landing
	input.capacity[l.capacity].market.value == "spot"
}
