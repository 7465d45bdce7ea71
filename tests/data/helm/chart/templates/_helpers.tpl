{{- define "vllm.name" -}}{{ .Chart.Name }}{{- end -}}
