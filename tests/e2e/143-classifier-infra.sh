#!/bin/sh
# 143-classifier-infra.sh: how the classifier rates cloud, cluster, deploy
# and database-tool CLIs, through the real binary. On c93eb52 every cloud
# CLI was rated by reaching the network alone: `terraform destroy
# -auto-approve`, `kubectl delete ns prod`, `aws s3 rm s3://b --recursive`,
# `gcloud projects delete p`, `gh repo delete o/r --yes` were net.fetch
# (high), the reason of `kubectl get pods`; `supabase db reset`, `prisma
# migrate reset --force`, `doctl compute droplet delete x`, `vercel rm app`
# were unknown programs (medium, auto-run) while `dropdb prod` was
# critical. Now by subcommand: reads stay net.fetch (with a reason that
# says they read), changes are cloud.change, one deletion cloud.delete, a
# wholesale destroy cloud.destroy (critical when it goes ahead unasked,
# high when the tool asks first), database wipes db.wipe. Nothing is
# executed: the table's commands are only classified.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$HOME" "$d/wd"

# tier, a rule that must fire, the command (TAB-separated)
printf '%s\n' \
	'critical	cloud.destroy	terraform destroy -auto-approve' \
	'critical	cloud.destroy	terraform -chdir=infra destroy -auto-approve' \
	'critical	cloud.destroy	tofu apply -destroy -auto-approve' \
	'critical	cloud.destroy	yes yes | terraform destroy' \
	'critical	cloud.destroy	kubectl delete ns prod' \
	'critical	cloud.destroy	kubectl -n x delete namespace prod' \
	'critical	cloud.destroy	kubectl delete pods --all -n prod' \
	'critical	cloud.destroy	kubectl delete pvc data-db-0' \
	'critical	cloud.destroy	helm uninstall web -n prod' \
	'critical	cloud.destroy	aws s3 rm s3://b --recursive' \
	'critical	cloud.destroy	aws --profile p s3 rm s3://b --recursive' \
	'critical	cloud.destroy	aws s3 rb s3://b --force' \
	'critical	cloud.destroy	aws cloudformation delete-stack --stack-name prod' \
	'critical	cloud.destroy	gcloud projects delete p' \
	'critical	cloud.destroy	gcloud --project p projects delete p' \
	'critical	cloud.destroy	gh repo delete o/r --yes' \
	'critical	cloud.destroy	az group delete -n rg --yes' \
	'critical	cloud.destroy	pulumi destroy -y' \
	'critical	cloud.destroy	cdk destroy --force' \
	'critical	cloud.destroy	npx cdk destroy --force' \
	'critical	cloud.destroy	heroku apps:destroy x --confirm x' \
	'critical	cloud.destroy	flyctl apps destroy x --yes' \
	'critical	cloud.destroy	doctl compute droplet delete x -f' \
	'critical	cloud.destroy	vercel rm app --yes' \
	'critical	cloud.destroy	/usr/local/bin/terraform destroy -auto-approve' \
	'high	cloud.destroy	terraform destroy' \
	'high	cloud.destroy	az group delete -n rg' \
	'high	cloud.destroy	heroku apps:destroy x' \
	'high	cloud.destroy	doctl compute droplet delete x' \
	'high	cloud.destroy	flyctl apps destroy x' \
	'high	cloud.destroy	vercel rm app' \
	'critical	db.wipe	supabase db reset' \
	'critical	db.wipe	prisma migrate reset --force' \
	'critical	db.wipe	npx prisma migrate reset --force' \
	'critical	db.wipe	bunx prisma migrate reset --force' \
	'critical	db.wipe	pnpm exec prisma migrate reset --force' \
	'critical	db.wipe	pnpm dlx prisma migrate reset --force' \
	'critical	db.wipe	npx prisma@5 migrate reset --force' \
	'critical	cloud.destroy	npx aws-cdk destroy --force' \
	'critical	cloud.destroy	TF_CLI_ARGS_destroy=-auto-approve terraform destroy' \
	'critical	cloud.destroy	PULUMI_SKIP_CONFIRMATIONS=true pulumi destroy' \
	'critical	cloud.destroy	kubectl delete deploy,ns x' \
	'critical	cloud.destroy	gsutil -m rm -r gs://b' \
	'critical	cloud.destroy	rclone purge remote:b' \
	'high	cloud.delete	terraform destroy -target=aws_instance.x -auto-approve' \
	'critical	db.wipe	bin/rails db:drop' \
	'critical	db.wipe	./manage.py flush --noinput' \
	'critical	db.wipe	node_modules/.bin/prisma migrate reset --force' \
	'critical	db.wipe	prisma db push --force-reset' \
	'critical	cloud.destroy	gh api -X DELETE repos/o/r' \
	'critical	cloud.destroy	kubectl delete --cascade orphan ns prod' \
	'critical	db.wipe	mix ecto.reset' \
	'critical	db.wipe	flask db downgrade base' \
	'critical	db.wipe	goose -dir db reset' \
	'critical	db.wipe	dotnet ef database drop --force' \
	'critical	fs.delete.root	kubectl exec -it web-0 -- rm -rf /' \
	'critical	db.wipe	heroku run rails db:drop -a x' \
	'critical	db.wipe	uv run alembic downgrade base' \
	'critical	db.wipe	poetry run alembic downgrade base' \
	'critical	db.wipe	python -m alembic downgrade base' \
	'critical	db.wipe	sequelize db:drop' \
	'critical	db.wipe	knex migrate:rollback --all' \
	'critical	db.wipe	django-admin flush --noinput' \
	'high	sql.drop	prisma db push --accept-data-loss' \
	'high	cloud.delete	kubectl delete pod x' \
	'high	cloud.delete	aws ec2 terminate-instances --instance-ids i-1' \
	'high	cloud.delete	gcloud compute instances delete vm' \
	'high	cloud.change	kubectl apply -f x.yaml' \
	'high	cloud.change	kubectl rollout restart deploy/web' \
	'high	cloud.change	kubectl -n prod scale deploy/web --replicas=3' \
	'high	cloud.change	terraform apply' \
	'high	cloud.change	helm upgrade --install web ./chart' \
	'high	cloud.change	gh pr create --fill' \
	'high	cloud.change	aws s3 cp f s3://b/f' \
	'high	cloud.change	flyctl deploy' \
	'high	secrets.read	gh auth token' \
	'high	secrets.read	aws configure get aws_secret_access_key' \
	'high	secrets.read	gcloud auth print-access-token' \
	'high	secrets.read	az account get-access-token' \
	'high	secrets.read	kubectl config view --raw' \
	'high	secrets.read	heroku auth:token' \
	'high	secrets.read	doctl auth token' >"$d/table"

while IFS='	' read -r tier rule cmd; do
	v=$(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --shell "$cmd")
	expect_eq "$cmd: tier" "$(printf '%s' "$v" | jq -r .tier)" "$tier"
	expect_eq "$cmd: $rule" "$(printf '%s' "$v" | jq -r --arg r "$rule" '.rules | index($r) != null')" true
done <"$d/table"

# reading stays net.fetch (high: it reaches the network, the sandbox has
# none), now with a reason that says it reads, and no cloud.* rule
for c in 'kubectl get pods' 'kubectl describe deploy web -n prod' 'kubectl logs deploy/web' \
	'helm list -A' 'helm status web' 'terraform plan' 'terraform show' 'aws s3 ls' \
	'aws ec2 describe-instances' 'gcloud compute instances list' 'gh pr list' 'gh pr view 12' \
	'terraform plan -destroy' 'kubectl delete ns prod --dry-run=server'; do
	v=$(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --shell "$c")
	expect_eq "$c: high" "$(printf '%s' "$v" | jq -r .tier)" high
	expect_eq "$c: net.fetch alone" "$(printf '%s' "$v" | jq -r '.rules | join(",")')" net.fetch
	case $c in
	*--dry-run*) want='previews' ;;
	*) want='reads' ;;
	esac
	expect_eq "$c: its reason says: $want" \
		"$(printf '%s' "$v" | jq -r --arg w "$want" '[.reasons[] | contains($w)] | any')" true
done

# k is not kubectl: an alias is not guessed; one the script defines is
# read with its arguments (it was high, the value judged alone)
expect_eq "k delete ns prod: an unknown program" \
	"$(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --shell 'k delete ns prod' | jq -r '.rules | join(",")')" \
	exec.unknown_program
expect_eq "alias k=kubectl; k delete ns prod: critical" \
	"$(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --shell 'alias k=kubectl; k delete ns prod' | jq -r .tier)" \
	critical

# what policy does with them: critical is denied, the asking form asks,
# and allow-critical names the one destroy a user means
act() { (cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" "$@") | jq -r .action; }
expect_eq "terraform destroy -auto-approve: deny" "$(act --shell 'terraform destroy -auto-approve')" deny
expect_eq "terraform destroy: ask" "$(act --shell 'terraform destroy')" ask
printf '[rules]\n\tallow-critical = "Shell(terraform -chdir=envs/dev destroy *)"\n' >"$d/policy"
chmod 600 "$d/policy"
expect_eq "allow-critical for envs/dev: auto" \
	"$(act --policy "$d/policy" --shell 'terraform -chdir=envs/dev destroy -auto-approve')" auto
expect_eq "allow-critical for envs/dev: envs/prod still denied" \
	"$(act --policy "$d/policy" --shell 'terraform -chdir=envs/prod destroy -auto-approve')" deny

check "classify ran nothing: the workdir is there" test -d "$d/wd"
finish
