#!/bin/sh
# Prints what Puppet's own fqdn_rand returns for a set of nodes and calls.
#
# Needs Debian 12's puppet 7.23.0 (apt-get install -y puppet) and its Ruby
# 3.1. Run from the repository root:
#     sh fleet/tests/data/make_puppet_fqdn_rand.sh > fleet/tests/data/puppet_fqdn_rand.tsv
#
# Each call is evaluated by the real Puppet compiler (Puppet::Pal, a
# script compiler over an empty environment) with the node's
# networking.fqdn fact set, so the language's own literals, escapes and
# argument conversion apply before the function runs. Rows: fips (no, or
# yes with Puppet::Util::Platform's FIPS flag set, which switches the
# digest to SHA-256), fqdn, call, and the value or "refused" when Puppet
# raises. No fqdn or call holds a tab or newline.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
exec ruby - "$dir" <<'RUBY'
require 'puppet'
require 'puppet_pal'

dir = ARGV[0]
Puppet.initialize_settings(%W[--confdir #{dir}/conf --vardir #{dir}/var
                              --codedir #{dir}/code --logdir #{dir}/log])
Puppet::Util::Log.level = :err

FQDNS = [
  'web01.example.com',
  'WEB01.Example.COM',
  'db-17.prod.eu-west-1.internal',
  'localhost',
  'a',
  'node with spaces.example',
  'café.example.fr',
  '日本語.例え.jp',
  'ΣΊΣΥΦΟΣ.Αθήνα.gr',
  'İstanbul.ÖRNEK.tr',
  'emoji-🚀.example',
  'ci/agents/builder 7',
  'ß-STRASSE.example.DE',
  'x' * 40 + '.' + 'long-label-' * 18 + 'example.org',
].freeze

# Every node takes these.
CALLS = [
  'fqdn_rand(60)',
  'fqdn_rand(24)',
  'fqdn_rand(1)',
  'fqdn_rand(2)',
  'fqdn_rand(7)',
  "fqdn_rand(60, 'backup')",
  'fqdn_rand(60, "backup")',
  "fqdn_rand(1440, 'nightly')",
  "fqdn_rand(12, 'month')",
  "fqdn_rand(28, 'café ☕ rapport')",
  'fqdn_rand(60, 42)',
  "fqdn_rand(60, 'x', true)",
].freeze

# Each of these runs on a few nodes, in turn.
MORE_CALLS = [
  'fqdn_rand(31)',
  'fqdn_rand(86400)',
  'fqdn_rand(4294967295)',
  'fqdn_rand(4294967296)',
  'fqdn_rand(4294967297)',
  'fqdn_rand(1099511627776, "wide")',
  'fqdn_rand(9223372036854775807)',
  'fqdn_rand(0x3c)',
  'fqdn_rand(0X3C, "hex")',
  'fqdn_rand(074)',
  "fqdn_rand('60')",
  'fqdn_rand("060")',
  'fqdn_rand(60,)',
  "fqdn_rand( 60 , 'spaced' , )",
  "fqdn_rand(60, '')",
  'fqdn_rand(60, "")',
  'fqdn_rand(60, 0)',
  'fqdn_rand(60, 0x10)',
  'fqdn_rand(60, 017)',
  'fqdn_rand(60, 9223372036854775807)',
  "fqdn_rand(60, 'a b, c (d)')",
  "fqdn_rand(60, 'it\\'s')",
  "fqdn_rand(60, 'back\\\\slash')",
  "fqdn_rand(60, 'kept\\q')",
  'fqdn_rand(60, "say \\"hi\\"")',
  'fqdn_rand(60, "tab\\there\\nnew\\rline")',
  'fqdn_rand(60, "\\s\\$\\\'\\\\")',
  'fqdn_rand(60, "kept\\q")',
  'fqdn_rand(60, "caf\\u00e9 \\u{1F680}")',
  'fqdn_rand(60, "\\u{48}\\u{0000e9}")',
  "fqdn_rand(60, '日本語 🚀')",
  'fqdn_rand(60, "$")',
  "fqdn_rand(60, 'x', false)",
  "fqdn_rand(24, 'seed', true)",
  "fqdn_rand(1440, '', true)",
  'fqdn_rand(0)',
  'fqdn_rand(00)',
  'fqdn_rand(0x0)',
  "fqdn_rand('0')",
  "fqdn_rand('')",
  'fqdn_rand(9223372036854775808)',
].freeze

def value(compiler, call)
  compiler.evaluate_string(call).to_s
rescue Puppet::Error
  'refused'
end

rows = []
FQDNS.each { |fqdn| CALLS.each { |call| rows << ['no', fqdn, call] } }
MORE_CALLS.each_with_index do |call, i|
  3.times { |k| rows << ['no', FQDNS[(3 * i + k) % FQDNS.size], call] }
end
(CALLS + MORE_CALLS.first(8)).each_with_index do |call, i|
  rows << ['yes', FQDNS[i % FQDNS.size], call]
end

puts "# Puppet #{Puppet.version}, Ruby #{RUBY_VERSION} (Debian 12 puppet 7.23.0-1+deb12u1)"
puts '# made with: sh fleet/tests/data/make_puppet_fqdn_rand.sh > fleet/tests/data/puppet_fqdn_rand.tsv'
puts '# columns: fips fqdn call value'
rows.each do |fips, fqdn, call|
  raise 'tab or newline in a row' if (fqdn + call) =~ /[\t\n]/
  Puppet::Pal.in_tmp_environment('vectors', modulepath: [],
                                 facts: { 'networking' => { 'fqdn' => fqdn } }) do |pal|
    pal.with_script_compiler do |compiler|
      Puppet::Util::Platform.instance_variable_set(:@fips_enabled, fips == 'yes')
      puts [fips, fqdn, call, value(compiler, call)].join("\t")
    end
  end
end
warn "#{rows.size} rows"
RUBY
