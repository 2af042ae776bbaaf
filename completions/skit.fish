# fish completion for skit. The words come from `skit __complete`.

function __skit_cmd
	set -l tokens (commandline -opc)
	for t in $tokens[2..-1]
		switch $t
			case '-*'
			case '*'
				echo $t
				return
		end
	end
end

function __skit_options
	set -l cmd (__skit_cmd)
	test -n "$cmd"; and skit __complete options $cmd 2>/dev/null
end

# The values of the option just typed (--format, --scope, --sandbox,
# --model...); nothing for an option that takes a path or free text.
function __skit_values
	set -l tokens (commandline -opc)
	set -l cmd (__skit_cmd)
	test (count $tokens) -ge 3; or return 1
	string match -q -- '--*' $tokens[-1]; or return 1
	test -n "$cmd"; and skit __complete values $cmd $tokens[-1] 2>/dev/null
end

complete -c skit -f
complete -c skit -n '__skit_values >/dev/null' -a '(__skit_values)'
complete -c skit -n 'test -z (__skit_cmd)' -a '(skit __complete commands 2>/dev/null)'
complete -c skit -n 'test -n (__skit_cmd); and string match -q -- "-*" (commandline -ct)' -a '(__skit_options)'
complete -c skit -n 'contains -- (__skit_cmd) show uninstall verify update scan' -a '(skit __complete skills 2>/dev/null)'
complete -c skit -n 'contains -- (__skit_cmd) help' -a '(skit __complete commands 2>/dev/null)'
complete -c skit -n 'contains -- (__skit_cmd) run chat; and string match -q -- "/*" (commandline -ct)' -a '(skit __complete skills 2>/dev/null | sed "s|^|/|")'
complete -c skit -n 'not contains -- (__skit_cmd) show uninstall verify update scan help; and not __skit_values >/dev/null' -F
